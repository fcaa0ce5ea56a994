/**
 * Aurora DSQL as a target module: a DSQL cluster in the cloud, a real PostgreSQL behind a
 * front that enforces DSQL's rules locally. Light on purpose: every CLI registers it before
 * `--help`; the CDK half (cdk.ts) and the engine (local.ts) load when a synth or a lab needs them.
 */
import { AZ_PING, UNIFORM_8MS_LINK } from '../../local/network/profiles';
import { lazyLocalTarget } from '../../local/targets';
import type { TargetModule } from '../registry';
import { awsCliTokenCommand, hasAwsCliV2, localAdminToken } from './admin-token';
import { cost } from './cost';

export const target: TargetModule = {
  name: 'dsql',
  cost,
  info: {
    label: 'Aurora DSQL',
    handlerEntry: 'targets/dsql/handler.ts',
    // Joins the news site's comparison wherever targets are compared.
    selectiveOperations: ['view', 'top10'],
    bundleBudgetBytes: 150 * 1024,
  },
  definition: () => import('./cdk').then((m) => m.dsqlTarget),
  local: lazyLocalTarget(() => import('./local').then((m) => m.dsqlTarget), {
    clientCommand: ({ engine, env, caCertPath, labCommand, region }) => {
      const address = `postgresql://${env.PGUSER}@${env.PGHOST}:${env.PGPORT}/${env.PGDATABASE}`;
      const tokenCommand = hasAwsCliV2()
        ? awsCliTokenCommand(env.PGHOST ?? 'localhost', region)
        : labCommand('token');
      return {
        engine: engine.replace(/ behind a DSQL auth front$/, ' + DSQL front'),
        address,
        command: `PGPASSWORD="$(${tokenCommand})" psql "${address}?sslmode=verify-full&sslrootcert=${caCertPath}" -c 'SELECT 1'`,
      };
    },
    commands: {
      token: {
        help: 'a DSQL admin auth token for psql (PGPASSWORD), as the AWS CLI would make',
        run: localAdminToken,
      },
    },
  }),
  links: {
    link: { rttMs: 1, serviceTime: null, sources: [AZ_PING] },
    byProfile: { 'uniform-8ms': UNIFORM_8MS_LINK },
  },
};
