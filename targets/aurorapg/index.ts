/**
 * Aurora Serverless v2 PostgreSQL as a target module: a serverless v2 cluster in the lab's VPC
 * with IAM database authentication over TLS, reached directly (minimum 0 ACUs: pause and
 * resume) or through RDS Proxy (settings.ts); locally the lab's PostgreSQL 16 behind a front that
 * checks RDS IAM tokens and charges the resume (front.ts, resume-model.ts). Light: the CDK half
 * (cdk.ts) and the engine (local.ts) load when a synth or a lab needs them. README.md says how.
 */
import { relative } from 'node:path';
import { PROJECT_ROOT } from '../../core/paths';
import { AZ_PING, UNIFORM_8MS_LINK } from '../../local/network/profiles';
import { lazyLocalTarget } from '../../local/targets';
import type { TargetModule } from '../registry';
import { cost } from './cost';

export const target: TargetModule = {
  name: 'aurorapg',
  info: {
    label: 'Aurora PostgreSQL',
    handlerEntry: relative(PROJECT_ROOT, new URL('./handler.ts', import.meta.url).pathname),
    selectiveOperations: ['view', 'top10'],
    bundleBudgetBytes: 150 * 1024,
  },
  definition: () => import('./cdk').then((m) => m.auroraTarget),
  local: lazyLocalTarget(() => import('./local').then((m) => m.auroraTarget), {
    clientCommand: ({ env, caCertPath }) => {
      const address = `postgresql://lab_app@${env.PGHOST}:${env.PGPORT}/${env.PGDATABASE}`;
      return {
        address,
        command: `PGPASSWORD="$(aws rds generate-db-auth-token --hostname ${env.PGHOST} --port ${env.PGPORT} --username lab_app --region us-east-1)" psql "${address}?sslmode=verify-full&sslrootcert=${caCertPath}" -c 'SELECT 1'`,
      };
    },
  }),
  links: {
    link: { rttMs: 1, serviceTime: null, sources: [AZ_PING] },
    byProfile: { 'uniform-8ms': UNIFORM_8MS_LINK },
  },
  cost,
};
