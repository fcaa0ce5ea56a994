/**
 * Verifies an Aurora DSQL IAM auth token the way the local API verifies SigV4 (sigv4.ts): one
 * known key pair, the signature recomputed and compared, the clock checked. A DSQL token is a
 * presigned GET of `https://<endpoint>/?Action=DbConnect|DbConnectAdmin`, service `dsql`,
 * signed header `host`, sent as the PostgreSQL password without its scheme.
 */
import { timingSafeEqual } from 'node:crypto';
import { Hash } from '@smithy/hash-node';
import { HttpRequest } from '@smithy/protocol-http';
import { SignatureV4 } from '@smithy/signature-v4';
import type { AwsCredentialIdentity } from '@smithy/types';
import { MAX_CLOCK_SKEW_MS } from '../../local/auth/sigv4';

export const DSQL_SERVICE = 'dsql';
/** DSQL accepts tokens valid for up to a week. */
export const MAX_TOKEN_EXPIRES_S = 604_800;

export type DsqlTokenVerdict = { ok: true; action: string } | { ok: false; reason: string };

const refuse = (reason: string): DsqlTokenVerdict => ({ ok: false, reason });

function parseAmzDate(s: string): Date | undefined {
  const m = /^(\d{4})(\d{2})(\d{2})T(\d{2})(\d{2})(\d{2})Z$/.exec(s);
  if (!m) return undefined;
  const d = new Date(`${m[1]}-${m[2]}-${m[3]}T${m[4]}:${m[5]}:${m[6]}Z`);
  return Number.isNaN(d.getTime()) ? undefined : d;
}

/**
 * Checks `token` for `action` on `host` (the endpoint name the client connected to, without
 * port), signed by `credentials`. Never throws.
 */
export async function verifyDsqlToken(
  token: string,
  expected: { readonly host: string; readonly action: 'DbConnect' | 'DbConnectAdmin' },
  credentials: AwsCredentialIdentity,
  now = new Date(),
): Promise<DsqlTokenVerdict> {
  const at = token.indexOf('/?');
  if (at <= 0) return refuse('the password is not a DSQL auth token');
  const host = token.slice(0, at);
  if (host !== expected.host) return refuse(`the token is for ${host}, not ${expected.host}`);
  const params = new URLSearchParams(token.slice(at + 2));
  const get = (k: string) => params.get(k) ?? '';
  const action = get('Action');
  if (action !== expected.action)
    return refuse(`the token is for ${action || 'no action'}, not ${expected.action}`);
  const signature = get('X-Amz-Signature');
  if (get('X-Amz-Algorithm') !== 'AWS4-HMAC-SHA256' || !/^[0-9a-f]{64}$/.test(signature)) {
    return refuse('the token is not signed');
  }
  const scope = /^([^/]+)\/(\d{8})\/([^/]+)\/([^/]+)\/aws4_request$/.exec(get('X-Amz-Credential'));
  if (!scope) return refuse('the token has no valid credential scope');
  const [, keyId, , region, service] = scope;
  if (keyId !== credentials.accessKeyId) return refuse('the token is signed by an unknown key');
  if (service !== DSQL_SERVICE) return refuse(`the token is scoped to ${service}, not ${DSQL_SERVICE}`);
  if (get('X-Amz-SignedHeaders') !== 'host') return refuse('the token must sign the host header only');
  const date = parseAmzDate(get('X-Amz-Date'));
  const expires = Number(get('X-Amz-Expires'));
  if (!date || !(Number.isInteger(expires) && expires > 0 && expires <= MAX_TOKEN_EXPIRES_S)) {
    return refuse('the token has no valid date or expiry');
  }
  if (date.getTime() - now.getTime() > MAX_CLOCK_SKEW_MS) return refuse('the token is signed in the future');
  if (now.getTime() > date.getTime() + expires * 1000) return refuse('the token has expired');

  const signer = new SignatureV4({
    credentials,
    region,
    service: DSQL_SERVICE,
    sha256: Hash.bind(null, 'sha256'),
  });
  const query: Record<string, string> = { Action: action };
  const sessionToken = params.get('X-Amz-Security-Token');
  if (sessionToken !== null) query['X-Amz-Security-Token'] = sessionToken;
  const request = new HttpRequest({
    method: 'GET',
    protocol: 'https:',
    hostname: host,
    path: '/',
    query,
    headers: { host },
  });
  const presigned = await signer.presign(request, { signingDate: date, expiresIn: expires });
  const want = Buffer.from(String(presigned.query?.['X-Amz-Signature'] ?? ''));
  const got = Buffer.from(signature);
  if (want.length !== got.length || !timingSafeEqual(want, got)) {
    return refuse('the token signature does not match');
  }
  return { ok: true, action };
}
