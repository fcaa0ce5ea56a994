/**
 * Verifies an RDS IAM database auth token as the dsql target's check does (local/auth/dsql-token.ts:
 * one known key, the SigV4 signature recomputed and compared, the clock checked), for RDS's
 * token: a presigned GET of `https://<host>:<port>/?Action=connect&DBUser=<user>`, service
 * `rds-db`, signed header `host`, valid 15 minutes, sent as the password without its scheme.
 * https://docs.aws.amazon.com/AmazonRDS/latest/AuroraUserGuide/UsingWithRDS.IAMDBAuth.Connecting.html
 */
import { timingSafeEqual } from 'node:crypto';
import { Hash } from '@smithy/hash-node';
import { HttpRequest } from '@smithy/protocol-http';
import { SignatureV4 } from '@smithy/signature-v4';
import type { AwsCredentialIdentity } from '@smithy/types';
import { MAX_CLOCK_SKEW_MS } from '../../local/auth/sigv4';

export const RDS_DB_SERVICE = 'rds-db';
/** "An authentication token has a lifetime of 15 minutes." */
export const MAX_TOKEN_EXPIRES_S = 900;

export type RdsTokenVerdict = { ok: true } | { ok: false; reason: string };

const refuse = (reason: string): RdsTokenVerdict => ({ ok: false, reason });

function parseAmzDate(s: string): Date | undefined {
  const m = /^(\d{4})(\d{2})(\d{2})T(\d{2})(\d{2})(\d{2})Z$/.exec(s);
  if (!m) return undefined;
  const d = new Date(`${m[1]}-${m[2]}-${m[3]}T${m[4]}:${m[5]}:${m[6]}Z`);
  return Number.isNaN(d.getTime()) ? undefined : d;
}

/** The access key id a token names in its credential scope ('' when none). */
export function tokenKeyId(token: string): string {
  const scope = new URLSearchParams(token.slice(token.indexOf('/?') + 2)).get('X-Amz-Credential') ?? '';
  return scope.split('/')[0] ?? '';
}

/**
 * Checks `token` for `user` at `host` (the endpoint name the client used; any port, see the
 * README), signed by one of `keys`. Never throws.
 */
export async function verifyRdsToken(
  token: string,
  expected: { readonly host: string; readonly user: string },
  keys: readonly AwsCredentialIdentity[],
  now = new Date(),
): Promise<RdsTokenVerdict> {
  const at = token.indexOf('/?');
  if (at <= 0) return refuse('the password is not an RDS auth token');
  const hostPort = token.slice(0, at);
  const host = hostPort.replace(/:\d+$/, '');
  if (host !== expected.host) return refuse(`the token is for ${host}, not ${expected.host}`);
  const params = new URLSearchParams(token.slice(at + 2));
  const get = (k: string) => params.get(k) ?? '';
  if (get('Action') !== 'connect')
    return refuse(`the token is for ${get('Action') || 'no action'}, not connect`);
  if (get('DBUser') !== expected.user)
    return refuse(`the token is for user ${get('DBUser')}, not ${expected.user}`);
  const signature = get('X-Amz-Signature');
  if (get('X-Amz-Algorithm') !== 'AWS4-HMAC-SHA256' || !/^[0-9a-f]{64}$/.test(signature))
    return refuse('the token is not signed');
  const scope = /^([^/]+)\/(\d{8})\/([^/]+)\/([^/]+)\/aws4_request$/.exec(get('X-Amz-Credential'));
  if (!scope) return refuse('the token has no valid credential scope');
  const [, keyId, , region, service] = scope;
  const credentials = keys.find((k) => k.accessKeyId === keyId);
  if (!credentials) return refuse('the token is signed by an unknown key');
  if (service !== RDS_DB_SERVICE) return refuse(`the token is scoped to ${service}, not ${RDS_DB_SERVICE}`);
  if (get('X-Amz-SignedHeaders') !== 'host') return refuse('the token must sign the host header only');
  const date = parseAmzDate(get('X-Amz-Date'));
  const expires = Number(get('X-Amz-Expires'));
  if (!date || !(Number.isInteger(expires) && expires > 0 && expires <= MAX_TOKEN_EXPIRES_S))
    return refuse('the token has no valid date or expiry');
  if (date.getTime() - now.getTime() > MAX_CLOCK_SKEW_MS) return refuse('the token is signed in the future');
  if (now.getTime() > date.getTime() + expires * 1000) return refuse('the token has expired');

  const signer = new SignatureV4({
    credentials,
    region,
    service: RDS_DB_SERVICE,
    sha256: Hash.bind(null, 'sha256'),
  });
  const query: Record<string, string> = { Action: 'connect', DBUser: expected.user };
  const sessionToken = params.get('X-Amz-Security-Token');
  if (sessionToken !== null) query['X-Amz-Security-Token'] = sessionToken;
  const [hostname, port] = hostPort.split(':');
  const request = new HttpRequest({
    method: 'GET',
    protocol: 'https:',
    hostname,
    ...(port ? { port: Number(port) } : {}),
    path: '/',
    query,
    headers: { host: hostPort },
  });
  const presigned = await signer.presign(request, { signingDate: date, expiresIn: expires });
  const want = Buffer.from(String(presigned.query?.['X-Amz-Signature'] ?? ''));
  const got = Buffer.from(signature);
  if (want.length !== got.length || !timingSafeEqual(want, got))
    return refuse('the token signature does not match');
  return { ok: true };
}
