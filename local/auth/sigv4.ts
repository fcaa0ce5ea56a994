/**
 * SigV4 for the lab's API, which uses IAM authorization: the load driver signs every
 * request with `execute-api` credentials, and the local host verifies the signature the
 * way API Gateway does, so the local lab is not an anonymous shortcut and measures the
 * signing cost like the cloud run does.
 */
import { createHash } from 'node:crypto';
import type { AwsCredentialIdentity } from '@smithy/types';
import { SERVICE, type SignableRequest, signerFor, toHttpRequest } from './sigv4-signer.mjs';

export { SERVICE, type SignableRequest, signRequest } from './sigv4-signer.mjs';
/** API Gateway rejects requests signed more than 5 minutes from its clock. */
export const MAX_CLOCK_SKEW_MS = 5 * 60 * 1000;

export type Verdict = { ok: true } | { ok: false; status: 403; message: string };

const AUTH =
  /^AWS4-HMAC-SHA256 Credential=([^/]+)\/(\d{8})\/([^/]+)\/([^/]+)\/aws4_request, SignedHeaders=([^,]+), Signature=([0-9a-f]{64})$/;

/** Checks a request as API Gateway's IAM authorization would, for one known key pair. */
export async function verifyRequest(
  r: SignableRequest,
  credentials: AwsCredentialIdentity,
  now = new Date(),
): Promise<Verdict> {
  const lower: Record<string, string> = {};
  for (const [k, v] of Object.entries(r.headers)) lower[k.toLowerCase()] = v;
  const auth = lower.authorization;
  if (!auth) return { ok: false, status: 403, message: 'Missing Authentication Token' };
  const m = AUTH.exec(auth);
  if (!m)
    return { ok: false, status: 403, message: 'Authorization header requires a valid SigV4 signature.' };
  const [, keyId, , region, service, signedHeaders] = m;
  if (keyId !== credentials.accessKeyId) {
    return { ok: false, status: 403, message: 'The security token included in the request is invalid.' };
  }
  if (service !== SERVICE)
    return {
      ok: false,
      status: 403,
      message: `Credential should be scoped to correct service: '${SERVICE}'.`,
    };
  const amzDate = lower['x-amz-date'];
  const when = amzDate
    ? new Date(amzDate.replace(/^(\d{4})(\d{2})(\d{2})T(\d{2})(\d{2})(\d{2})Z$/, '$1-$2-$3T$4:$5:$6Z'))
    : undefined;
  if (!when || Number.isNaN(when.getTime()))
    return { ok: false, status: 403, message: 'Missing or invalid X-Amz-Date.' };
  if (Math.abs(now.getTime() - when.getTime()) > MAX_CLOCK_SKEW_MS) {
    return {
      ok: false,
      status: 403,
      message: 'Signature expired: the request time is too far from the server time.',
    };
  }
  // The signer trusts an x-amz-content-sha256 header over the body; API Gateway hashes the body itself.
  const payloadHash = createHash('sha256')
    .update(r.body ?? '')
    .digest('hex');
  const claimed = lower['x-amz-content-sha256'];
  if (claimed !== undefined && claimed !== payloadHash && claimed !== 'UNSIGNED-PAYLOAD') {
    return {
      ok: false,
      status: 403,
      message: 'The request signature we calculated does not match the signature you provided.',
    };
  }
  const signedOnly: Record<string, string> = {};
  for (const h of signedHeaders.split(';')) if (lower[h] !== undefined) signedOnly[h] = lower[h];
  if (signedOnly['x-amz-content-sha256'] !== undefined) signedOnly['x-amz-content-sha256'] = payloadHash;
  const expected = await signerFor(credentials, region).sign(
    toHttpRequest({ ...r, headers: signedOnly }, when),
    {
      signingDate: when,
      signableHeaders: new Set(signedHeaders.split(';')),
    },
  );
  if (expected.headers.authorization !== auth) {
    return {
      ok: false,
      status: 403,
      message: 'The request signature we calculated does not match the signature you provided.',
    };
  }
  return { ok: true };
}
