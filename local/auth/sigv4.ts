/**
 * SigV4 for the lab's API, which uses IAM authorization: the load driver signs every
 * request with `execute-api` credentials, and the local host verifies the signature the
 * way API Gateway does, so the local lab is not an anonymous shortcut and measures the
 * signing cost like the cloud run does.
 */
import { createHash } from 'node:crypto';
import type { AwsCredentialIdentity } from '@smithy/types';
import { SERVICE, signerFor, toHttpRequest } from './sigv4-signer.mjs';

export { SERVICE, type SignableRequest, signRequest } from './sigv4-signer.mjs';
/** API Gateway rejects requests signed more than 5 minutes from its clock. */
export const MAX_CLOCK_SKEW_MS = 5 * 60 * 1000;

/**
 * What API Gateway names in `x-amzn-errortype` for each way IAM authorization fails:
 * no signature at all, a malformed one, an unknown key, or one that does not match.
 */
export type AuthErrorType =
  | 'MissingAuthenticationTokenException'
  | 'IncompleteSignatureException'
  | 'UnrecognizedClientException'
  | 'InvalidSignatureException';

export type Verdict = { ok: true } | { ok: false; status: 403; message: string; errorType: AuthErrorType };

/** A request as the server received it. */
export interface ReceivedRequest {
  readonly method: string;
  /** The origin-form target, path and query (`/lab/x?a=1`), as the server parsed it. */
  readonly target: string;
  /** As received, Host among them: Host is checked as a signed header, never parsed into a URL. */
  readonly headers: Record<string, string>;
  readonly body?: string;
}

const AUTH =
  /^AWS4-HMAC-SHA256 Credential=([^/]+)\/(\d{8})\/([^/]+)\/([^/]+)\/aws4_request, SignedHeaders=([^,]+), Signature=([0-9a-f]{64})$/;

const deny = (errorType: AuthErrorType, message: string): Verdict => ({
  ok: false,
  status: 403,
  message,
  errorType,
});
const MISMATCH = 'The request signature we calculated does not match the signature you provided.';

/** Checks a request as API Gateway's IAM authorization would, for one known key pair. Never throws. */
export async function verifyRequest(
  r: ReceivedRequest,
  credentials: AwsCredentialIdentity,
  now = new Date(),
): Promise<Verdict> {
  const lower: Record<string, string> = {};
  for (const [k, v] of Object.entries(r.headers)) lower[k.toLowerCase()] = v;
  const auth = lower.authorization;
  if (!auth) return deny('MissingAuthenticationTokenException', 'Missing Authentication Token');
  const m = AUTH.exec(auth);
  if (!m)
    return deny('IncompleteSignatureException', 'Authorization header requires a valid SigV4 signature.');
  const [, keyId, , region, service, signedHeaders] = m;
  if (keyId !== credentials.accessKeyId) {
    return deny('UnrecognizedClientException', 'The security token included in the request is invalid.');
  }
  if (service !== SERVICE)
    return deny('InvalidSignatureException', `Credential should be scoped to correct service: '${SERVICE}'.`);
  const amzDate = lower['x-amz-date'];
  const when = amzDate
    ? new Date(amzDate.replace(/^(\d{4})(\d{2})(\d{2})T(\d{2})(\d{2})(\d{2})Z$/, '$1-$2-$3T$4:$5:$6Z'))
    : undefined;
  // A signature without its date is incomplete, as API Gateway classes it.
  if (!when || Number.isNaN(when.getTime()))
    return deny('IncompleteSignatureException', 'Missing or invalid X-Amz-Date.');
  if (Math.abs(now.getTime() - when.getTime()) > MAX_CLOCK_SKEW_MS) {
    return deny(
      'InvalidSignatureException',
      'Signature expired: the request time is too far from the server time.',
    );
  }
  // The signer trusts an x-amz-content-sha256 header over the body; API Gateway hashes the body itself.
  const payloadHash = createHash('sha256')
    .update(r.body ?? '')
    .digest('hex');
  const claimed = lower['x-amz-content-sha256'];
  if (claimed !== undefined && claimed !== payloadHash && claimed !== 'UNSIGNED-PAYLOAD') {
    return deny('InvalidSignatureException', MISMATCH);
  }
  const signed = signedHeaders.split(';');
  const signedOnly: Record<string, string> = {};
  for (const h of signed) if (lower[h] !== undefined) signedOnly[h] = lower[h];
  if (signedOnly['x-amz-content-sha256'] !== undefined) signedOnly['x-amz-content-sha256'] = payloadHash;
  try {
    // A fixed base: only the target's path and query come from the request, never the Host header.
    const request = toHttpRequest(
      { method: r.method, url: `http://localhost${r.target}`, headers: signedOnly, body: r.body },
      when,
    );
    // The Host value is signed as received (or absent, and then the signature cannot match).
    if (signedOnly.host === undefined) delete request.headers.host;
    else request.headers.host = signedOnly.host;
    const expected = await signerFor(credentials, region).sign(request, {
      signingDate: when,
      signableHeaders: new Set(signed),
    });
    if (expected.headers.authorization !== auth) return deny('InvalidSignatureException', MISMATCH);
  } catch {
    // A target or header the signer cannot canonicalize cannot carry a valid signature.
    return deny('InvalidSignatureException', MISMATCH);
  }
  return { ok: true };
}
