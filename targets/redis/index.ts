/**
 * Redis as a target module: the user's own TLS Redis (Upstash) in the cloud, a real
 * redis-server locally. Light on purpose: every CLI registers it before `--help`; the CDK half
 * (cdk.ts) and the engine (local.ts) load when a synth or a lab needs them.
 */
import { shellWord } from '../../local/lab-env';
import { AZ_PING, UNIFORM_8MS_LINK } from '../../local/network/profiles';
import { lazyLocalTarget } from '../../local/targets';
import type { TargetModule } from '../registry';
import { cost } from './cost';
import { LOCAL_REDIS_SECRET_ARN } from './local-secret';

export const target: TargetModule = {
  name: 'redis',
  cost,
  info: {
    label: 'Redis',
    // The news site's article compared DynamoDB, Upstash and FaunaDB (gone).
    selectiveOperations: ['view', 'top10'],
    bundleBudgetBytes: 100 * 1024,
    // Its URL comes from the secrets extension, which serves only once init is over (lambda/shared/prewarm.ts).
    prewarms: false,
  },
  definition: () => import('./cdk').then((m) => m.redisTarget),
  local: lazyLocalTarget(() => import('./local').then((m) => m.redisTarget), {
    // The functions name a secret; locally the extension stand-in answers for this one.
    synthContext: { redisSecretArn: LOCAL_REDIS_SECRET_ARN },
    clientCommand: ({ modelUrl, env, caCert }) => {
      const url = new URL(env.REDIS_URL ?? modelUrl);
      return {
        address: `rediss://${url.host}`,
        command: `redis-cli --tls --cacert ${caCert} -h ${url.hostname} -p ${url.port} -a ${shellWord(decodeURIComponent(url.password))} --no-auth-warning PING`,
      };
    },
  }),
  context: {
    // Complete, with the 6 characters Secrets Manager appends to the name: IAM matches the grant
    // on exactly this string, and a partial ARN would match no secret.
    redisSecretArn: {
      allowed:
        'a complete Secrets Manager secret ARN (arn:aws:secretsmanager:<region>:<account>:secret:<name>-<6 characters>)',
      valid: (v) =>
        /^arn:aws[a-z-]*:secretsmanager:[a-z]{2}(-[a-z]+)+-\d:\d{12}:secret:[A-Za-z0-9/_+=.@-]+-[A-Za-z0-9]{6}$/.test(
          v,
        ),
      required: true,
    },
  },
  links: {
    link: {
      rttMs: 0.3,
      serviceTime: {
        p50Ms: 0.36,
        p99Ms: 0.44,
        derivation: 'Lambda Store p50 0.658 / p99.22 0.739 ms minus a same-AZ round trip (0.3 ms)',
      },
      sources: [
        {
          what: 'Lambda Store (Upstash) read from eu-west-1, 1 client: p50 0.658 ms, p99.22 0.739 ms, p99.9 1.92 ms (histogram article, 2020)',
          seed: 'serverless-redis-vs-faunadb-histograms.txt',
        },
        AZ_PING,
      ],
    },
    byProfile: { 'uniform-8ms': UNIFORM_8MS_LINK },
  },
};
