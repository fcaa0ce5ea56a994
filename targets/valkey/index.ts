/**
 * ElastiCache Serverless (Valkey) as a target module: a serverless cache in the lab's VPC with
 * IAM authentication in the cloud (cdk.ts), its own redis-server in cluster mode locally
 * (local.ts), the redis target's store over TLS with an IAM token (store.ts), ECPUs metered from
 * each command's bytes (cost.ts). Light on purpose: every CLI registers it before `--help`.
 */
import { shellWord } from '../../local/lab-env';
import { AZ_PING, UNIFORM_8MS_LINK } from '../../local/network/profiles';
import { lazyLocalTarget } from '../../local/targets';
import type { TargetModule } from '../registry';
import { cost } from './cost';
import { VALKEY_URL_ENV } from './env-names';

export const target: TargetModule = {
  name: 'valkey',
  info: {
    label: 'ElastiCache Serverless (Valkey)',
    // ioredis, the redis store and the SigV4 signer: a little more than the redis target's bundle.
    bundleBudgetBytes: 120 * 1024,
    // Its binding sets no PREWARM_CONNECTION: the store connects on the first call (cdk.ts).
    prewarms: false,
  },
  definition: () => import('./cdk').then((m) => m.valkeyTarget),
  local: lazyLocalTarget(() => import('./local').then((m) => m.valkeyTarget), {
    clientCommand: ({ modelUrl, env, caCert }) => {
      const url = new URL(env[VALKEY_URL_ENV] ?? modelUrl);
      return {
        address: `rediss://${url.host}`,
        command: `redis-cli --tls --cacert ${caCert} -h ${url.hostname} -p ${url.port} --user ${shellWord(decodeURIComponent(url.username))} --pass ${shellWord(decodeURIComponent(url.password))} --no-auth-warning PING`,
      };
    },
  }),
  links: {
    link: {
      // The cache has an endpoint in each of the VPC's subnets: a function reaches it in its own
      // AZ, a same-AZ round trip.
      rttMs: 0.3,
      serviceTime: {
        p50Ms: 0.12,
        p99Ms: 0.99,
        derivation:
          'redis-benchmark GET against ElastiCache in the same AZ, p50 0.423 / p99 1.287 ms, minus a same-AZ round trip (0.3 ms); a node-based cache (AWS publishes only "microsecond" and "sub-millisecond" for serverless caches), so the serverless proxy hop is not in it',
      },
      sources: [
        AZ_PING,
        {
          what: 'redis-benchmark -t get -c 50 against a cache.r7g.xlarge ElastiCache node from the same AZ: p50 0.423 ms, p99 1.287 ms (a vendor benchmark, 2026)',
          url: 'https://cachee.ai/blog/posts/2026-03-29-redis-elasticache-is-slow-16us-cache-reads-vs-339us-benchmark-results',
        },
        {
          what: 'ElastiCache Serverless: a proxy layer across AZs in front of the cache nodes; AWS states microsecond, sub-millisecond latency without a figure',
          url: 'https://docs.aws.amazon.com/AmazonElastiCache/latest/dg/WhatIs.corecomponents.html',
        },
      ],
    },
    byProfile: { 'uniform-8ms': UNIFORM_8MS_LINK },
  },
  cost,
};
