/**
 * DynamoDB as a target module: the articles' reference (the baseline the reports divide by).
 * Light on purpose: every CLI registers it before `--help`; the CDK half (cdk.ts) and the
 * engines (local.ts) load when a synth or a lab needs them.
 */
import { AZ_MAP, AZ_PING, UNIFORM_8MS_LINK } from '../../local/network/profiles';
import { lazyLocalTarget } from '../../local/targets';
import type { TargetModule } from '../registry';
import { cost } from './cost';
import { ENGINE_KINDS } from './engine-types';

export const target: TargetModule = {
  name: 'dynamodb',
  cost,
  info: {
    label: 'DynamoDB',
    baseline: true,
    // put10: the keep-alive article's ten writes; view and top10: the news site's article.
    selectiveOperations: ['put10', 'view', 'top10'],
    bundleBudgetBytes: 100 * 1024,
    deployedCheck: () => import('./deployed-check').then((m) => m.checkDeployedTable),
  },
  definition: () => import('./cdk').then((m) => m.dynamodbTarget),
  local: lazyLocalTarget(() => import('./local').then((m) => m.dynamodbTarget), {
    clientCommand: ({ modelUrl }) => ({ command: `aws dynamodb list-tables --endpoint-url ${modelUrl}` }),
    engineKinds: ENGINE_KINDS,
  }),
  links: {
    link: {
      rttMs: 1,
      serviceTime: {
        p50Ms: 2.6,
        p99Ms: 15,
        derivation:
          "the warm-GetItem handler p50 5.8 / p99 20.7 ms minus 1 round trip and the client's own time (SDK, TLS records, the model's timers): with the service time off, a kept-alive get measured 2.9 ms p50 here, round trip and dynalite included",
      },
      sources: [
        {
          // The figure issue 25 quotes; its original page is not in the lab's store.
          what: 'warm GetItem from Lambda (2024, 1,024 MB, kept alive), handler duration p50 5.8 ms, p90 7.8 ms, p99 20.7 ms (as the lab issue "Memory is CPU locally" quotes it; its page is not in the lab\'s store)',
        },
        AZ_PING,
        AZ_MAP,
      ],
    },
    byProfile: { 'uniform-8ms': UNIFORM_8MS_LINK },
  },
};
