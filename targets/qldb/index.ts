/**
 * QLDB as a target module (service shut down 2025-07-31; emulated locally). Light on purpose:
 * every CLI registers it before `--help`; the CDK half (cdk.ts) and the engine (local.ts) load
 * when a synth or a lab needs them.
 */
import { AZ_PING, UNIFORM_8MS_LINK } from '../../local/network/profiles';
import { lazyLocalTarget } from '../../local/targets';
import type { TargetModule } from '../registry';
import { cost } from './cost';

export const target: TargetModule = {
  name: 'qldb',
  cost,
  info: {
    label: 'QLDB',
    notice:
      "QLDB: emulated locally (service shut down 2025-07-31); figures show its protocol's round trips, not QLDB's storage",
    handlerEntry: 'targets/qldb/handler.ts',
    // No view or top10: QLDB's PartiQL has no ORDER BY, so it could not serve a top 10 from an index.
    bundleBudgetBytes: 300 * 1024,
  },
  definition: () => import('./cdk').then((m) => m.qldbTarget),
  local: lazyLocalTarget(() => import('./local').then((m) => m.qldbTarget), {
    clientCommand: ({ modelUrl, env, tables }) => ({
      command: `export AWS_ENDPOINT_URL_QLDB_SESSION=${env.AWS_ENDPOINT_URL_QLDB_SESSION ?? modelUrl}  (the QLDB driver's SDK reads it)${tables.length > 0 ? `, ledger ${tables.join(', ')}` : ''}`,
    }),
  }),
  links: {
    link: {
      rttMs: 1,
      serviceTime: {
        p50Ms: 11,
        p99Ms: 40,
        derivation:
          "~40 ms for 3 warm SendCommands, each ~1 round trip and ~1.5 ms of client time; p99 assumes the DynamoDB figure's tail (p99/p50 3.6x): QLDB published none",
      },
      sources: [
        {
          what: 'QLDB creates and gets ~40 ms from Lambda after tuning, 4 SendCommand calls per request (session, start, execute, commit) (qldb-vs-dynamodb article, 2020)',
          seed: 'qldb-vs-dynamodb-optimising.txt',
        },
        AZ_PING,
      ],
    },
    byProfile: { 'uniform-8ms': UNIFORM_8MS_LINK },
  },
};
