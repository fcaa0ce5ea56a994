/**
 * `npm run -s local -- token`: a DSQL admin token for the running lab's endpoint (PGHOST),
 * signed with the local caller as `aws dsql generate-db-connect-admin-auth-token` signs with
 * the caller's key, for users without the AWS CLI v2.
 */
import { execFileSync } from 'node:child_process';
import { UsageError } from '../../core/errors';
import { LOCAL_CALLER } from '../../local/lab-defaults';

/** The token for the lab whose environment file holds `env`. */
export async function localAdminToken(env: Readonly<Record<string, string>>): Promise<string> {
  if (!env.PGHOST)
    throw new UsageError('the running lab serves no DSQL target; start it with --targets dsql');
  const { DsqlSigner } = await import('@aws-sdk/dsql-signer');
  const signer = new DsqlSigner({
    hostname: env.PGHOST,
    region: env.AWS_REGION ?? LOCAL_CALLER.region,
    credentials: { accessKeyId: LOCAL_CALLER.accessKeyId, secretAccessKey: LOCAL_CALLER.secretAccessKey },
  });
  return signer.getDbConnectAdminAuthToken();
}

/** The AWS CLI's token command for the local DSQL endpoint. */
export const awsCliTokenCommand = (host: string, region: string): string =>
  `aws dsql generate-db-connect-admin-auth-token --hostname ${host} --region ${region}`;

/**
 * True when the AWS CLI v2 is on PATH: v1 has no `dsql generate-db-connect-admin-auth-token`,
 * so without v2 the screen shows the lab's own token command.
 */
export function hasAwsCliV2(): boolean {
  try {
    const out = execFileSync('aws', ['--version'], { encoding: 'utf8', timeout: 10_000, stdio: 'pipe' });
    return out.startsWith('aws-cli/2.');
  } catch {
    return false;
  }
}
