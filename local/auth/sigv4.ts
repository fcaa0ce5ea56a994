/**
 * SigV4 for the lab's API, which uses IAM authorization: the load driver signs every
 * request with `execute-api` credentials, and the local host verifies the signature the
 * way API Gateway does, so the local lab is not an anonymous shortcut and measures the
 * signing cost like the cloud run does.
 *
 * The verifier never re-signs with a signer of its own: it rebuilds the canonical request
 * from what the client sent (its method, raw path and query, the headers it named in
 * SignedHeaders, the body's hash) and compares signatures, so any correct SigV4 signer
 * passes (botocore, aws4, curl --aws-sigv4, the SDKs). Spec:
 * https://docs.aws.amazon.com/IAM/latest/UserGuide/reference_sigv-create-signed-request.html
 * Refusals answer with API Gateway's messages and x-amzn-errortype, as listed in
 * https://docs.aws.amazon.com/IAM/latest/UserGuide/reference_sigv-troubleshooting.html
 */

import * as crypto from 'node:crypto';
import { createHash, createHmac, createSecretKey, type KeyObject, timingSafeEqual } from 'node:crypto';
import type { AwsCredentialIdentity } from '@smithy/types';
import { SERVICE } from './sigv4-signer.mjs';

export { SERVICE, type SignableRequest, signRequest } from './sigv4-signer.mjs';
/**
 * API Gateway refuses a signature dated more than 5 minutes from its clock, either way
 * ("Signature expired: ... (... - 5 min.)"), unlike S3's 15.
 */
export const MAX_CLOCK_SKEW_MS = 5 * 60 * 1000;
/** The longest a presigned URL may be valid, as for every SigV4 query-string signature. */
export const MAX_PRESIGN_EXPIRES_S = 604_800;
/** The region the lab's API answers in: a signature scoped to any other is refused. */
export const DEFAULT_API_REGION = 'us-east-1';

/**
 * What API Gateway names in `x-amzn-errortype` for each way IAM authorization fails:
 * no signature at all, a malformed one, an unknown key or token, or one that does not match
 * (scope, clock and signature mismatches alike).
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
  /** The origin-form target as sent (`/lab/x?a=1`), not normalized: the path is signed as sent. */
  readonly target: string;
  /**
   * As received, Host among them; a name that came more than once holds every value in order.
   * Host is checked as a signed header, never parsed into a URL. A Map's names are lower-case
   * already (the API server builds one in its single pass over the raw headers); a record's
   * names may be in any case.
   */
  readonly headers:
    | Readonly<Record<string, string | readonly string[]>>
    | ReadonlyMap<string, readonly string[]>;
  readonly body?: string | Buffer;
}

/**
 * Who may call: the keys the lab issued (a long-term caller, and the temporary credentials of
 * its functions with their session token) and the region the API is in.
 */
export interface IamAuthority {
  /** Every key pair the API accepts; one with a sessionToken is accepted only with that token. */
  readonly principals?: readonly AwsCredentialIdentity[];
  /** One key pair (what older callers pass); joins principals. */
  readonly credentials?: AwsCredentialIdentity;
  /** @default DEFAULT_API_REGION */
  readonly region?: string;
}

const deny = (errorType: AuthErrorType, message: string): Verdict => ({
  ok: false,
  status: 403,
  message,
  errorType,
});

export const MISSING_TOKEN = 'Missing Authentication Token';
export const INVALID_TOKEN = 'The security token included in the request is invalid.';
export const SIGNATURE_MISMATCH =
  'The request signature we calculated does not match the signature you provided. Check your AWS Secret Access Key and signing method. Consult the service documentation for details.';
const ALGORITHM = 'AWS4-HMAC-SHA256';
const EMPTY_SHA256 = createHash('sha256').update('').digest('hex');

/**
 * SHA-256 hex in one call: crypto.hash (Node 20.12+) skips the Hash object createHash builds,
 * which is most of a small hash's cost; older Nodes take the object route.
 */
const oneShot = (
  crypto as {
    hash?: {
      (alg: string, data: string | Buffer, enc: 'hex'): string;
      (alg: string, data: string | Buffer, enc: 'buffer'): Buffer;
    };
  }
).hash;
const sha256Hex: (data: string | Buffer) => string = oneShot
  ? (data) => oneShot('sha256', data, 'hex')
  : (data) => createHash('sha256').update(data).digest('hex');

/**
 * `20260101T120000Z` -> Date, or undefined. The last answer is kept: a client signs every
 * request it sends within one second with the same X-Amz-Date, so most requests parse nothing.
 */
function parseAmzDate(s: string | undefined): Date | undefined {
  if (s === undefined) return undefined;
  if (s === lastAmzDate.text) return lastAmzDate.date;
  const date = parseAmzDateText(s);
  lastAmzDate = { text: s, date };
  return date;
}
let lastAmzDate: { text: string; date: Date | undefined } = { text: '', date: undefined };
function parseAmzDateText(s: string): Date | undefined {
  if (!AMZ_DATE.test(s)) return undefined;
  const n = (from: number, to: number) => Number(s.slice(from, to));
  const [y, mo, d, h, mi, se] = [n(0, 4), n(4, 6), n(6, 8), n(9, 11), n(11, 13), n(13, 15)];
  const ms = Date.UTC(y, mo - 1, d, h, mi, se);
  // Date.UTC rolls 20260231 over to March: a date that does not exist is not a date.
  const back = new Date(ms);
  return back.getUTCMonth() === mo - 1 && back.getUTCDate() === d && h < 24 && mi < 60 && se < 60
    ? back
    : undefined;
}
const AMZ_DATE = /^\d{8}T\d{6}Z$/;
const toAmzDate = (d: Date) => d.toISOString().replace(/[:-]|\.\d{3}/g, '');

/** RFC 3986 encoding of everything but unreserved characters, as SigV4 asks (UTF-8, upper-case hex). */
function uriEncode(s: string): string {
  if (UNRESERVED.test(s)) return s;
  return encodeURIComponent(s).replace(/[!'()*]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`);
}

const UNRESERVED = /^[A-Za-z0-9\-._~]*$/;
/** Segments of unreserved characters, none empty, `.` or `..`, and at most one trailing slash. */
const PLAIN_PATH = /^(?:\/(?!\.\.?(?:\/|$))[A-Za-z0-9\-._~]+)+\/?$/;

/** Percent-decodes a query name or value; a malformed escape stays as sent. */
function decodeComponent(s: string): string {
  try {
    return decodeURIComponent(s);
  } catch {
    return s;
  }
}

/**
 * The canonical URI of every service but S3: the path as the client sent it, its dot segments
 * and empty segments removed (as botocore, the SDKs and aws4 do), and each segment URI-encoded
 * once more, so an escape the client sent (`%40`) is signed as `%2540`.
 */
export function canonicalUri(rawPath: string): string {
  if (rawPath === '' || rawPath === '/') return '/';
  // Most paths need nothing done: unreserved characters only, no empty or dot segments.
  if (PLAIN_PATH.test(rawPath)) return rawPath;
  const out: string[] = [];
  for (const segment of rawPath.split('/')) {
    if (segment === '' || segment === '.') continue;
    if (segment === '..') out.pop();
    // Bytes Node read as latin1 (raw non-ASCII in a path) are re-read as the UTF-8 the client meant.
    else
      out.push(
        uriEncode(/[\u0080-\uffff]/.test(segment) ? Buffer.from(segment, 'latin1').toString() : segment),
      );
  }
  const trailing = rawPath.endsWith('/') && out.length > 0 ? '/' : '';
  return `/${out.join('/')}${trailing}`;
}

/** Name/value pairs of a raw query string, decoded, in order (a presigned URL's signature among them). */
function queryPairs(rawQuery: string): [string, string][] {
  const pairs: [string, string][] = [];
  for (const piece of rawQuery.split('&')) {
    if (piece === '') continue;
    const eq = piece.indexOf('=');
    const [k, v] = eq < 0 ? [piece, ''] : [piece.slice(0, eq), piece.slice(eq + 1)];
    pairs.push([decodeComponent(k), decodeComponent(v)]);
  }
  return pairs;
}

/** Each name and value URI-encoded, sorted by name then value (code point order), joined with `&`. */
export function canonicalQuery(pairs: readonly (readonly [string, string])[]): string {
  return pairs
    .map(([k, v]) => [uriEncode(k), uriEncode(v)] as const)
    .sort(([ak, av], [bk, bv]) => (ak < bk ? -1 : ak > bk ? 1 : av < bv ? -1 : av > bv ? 1 : 0))
    .map(([k, v]) => `${k}=${v}`)
    .join('&');
}

/** A header value as signed: values of a repeated header joined by commas, each trimmed, runs of spaces folded. */
const canonicalValue = (values: readonly string[]) =>
  values.length === 1 && !FOLDABLE.test(values[0])
    ? values[0]
    : values.map((v) => v.trim().replace(/\s+/g, ' ')).join(',');
/** A value that trimming or folding would change: edge whitespace or a run/kind of space to fold. */
const FOLDABLE = /^\s|\s$|\s\s|[\t\n\r\v\f\u00a0\u1680\u2000-\u200a\u2028\u2029\u202f\u205f\u3000\ufeff]/;

/**
 * The derived key for one secret, day, region and service (four HMACs), cached: a day holds few.
 * Kept as HMAC-SHA256's two padded key blocks (RFC 2104: the key XOR 0x36 and XOR 0x5c, each
 * 64 bytes), so the request's HMAC is two one-shot SHA-256 hashes. Profiled in the host under
 * load, building an Hmac object per request was a third of the verifier's time.
 */
interface SigningKey {
  readonly key: KeyObject;
  readonly innerPad: Buffer;
  readonly outerPad: Buffer;
}
const signingKeys = new Map<string, SigningKey>();
const SHA256_BLOCK = 64;
function signingKey(secret: string, day: string, region: string, service: string): SigningKey {
  const id = `${secret}\u0000${day}\u0000${region}\u0000${service}`;
  let key = signingKeys.get(id);
  if (!key) {
    const hmac = (k: string | Buffer, data: string) => createHmac('sha256', k).update(data).digest();
    const raw = hmac(hmac(hmac(hmac(`AWS4${secret}`, day), region), service), 'aws4_request');
    // 32 bytes, shorter than SHA-256's block: zero-padded, never hashed first.
    const innerPad = Buffer.alloc(SHA256_BLOCK, 0x36);
    const outerPad = Buffer.alloc(SHA256_BLOCK, 0x5c);
    for (let i = 0; i < raw.length; i++) {
      innerPad[i] ^= raw[i];
      outerPad[i] ^= raw[i];
    }
    key = { key: createSecretKey(raw), innerPad, outerPad };
    if (signingKeys.size >= 64) signingKeys.clear();
    signingKeys.set(id, key);
  }
  return key;
}

/** Scratch for the outer hash's input (pad + inner digest): the verifier is synchronous, so one serves all. */
const outerInput = Buffer.alloc(SHA256_BLOCK + 32);

/** HMAC-SHA256 of an ASCII-or-UTF-8 string under a cached key, as a Buffer. */
function hmacSha256(key: SigningKey, data: string): Buffer {
  if (!oneShot) return createHmac('sha256', key.key).update(data).digest();
  const inner = Buffer.allocUnsafe(SHA256_BLOCK + Buffer.byteLength(data));
  key.innerPad.copy(inner, 0);
  inner.write(data, SHA256_BLOCK);
  key.outerPad.copy(outerInput, 0);
  oneShot('sha256', inner, 'buffer').copy(outerInput, SHA256_BLOCK);
  return oneShot('sha256', outerInput, 'buffer');
}

interface SignatureParts {
  readonly credential: string;
  readonly signedHeaders: string;
  readonly signature: string;
  /** From the query (presigned) or the headers. */
  readonly amzDate: string | undefined;
  readonly securityToken: string | undefined;
  /** Presigned only: seconds the URL is valid. */
  readonly expires?: string;
  readonly presigned: boolean;
}

/**
 * The Authorization header's parameters, or API Gateway's IncompleteSignatureException message
 * naming what is missing (its wording, the header quoted at the end). Scanned in place: the
 * three names it needs are all it keeps.
 */
function parseAuthorization(
  auth: string,
  date: string | undefined,
): { credential: string; signedHeaders: string; signature: string; problem?: string } {
  let credential = '';
  let signedHeaders = '';
  let signature = '';
  if (auth.startsWith(`${ALGORITHM} `)) {
    let from = ALGORITHM.length + 1;
    while (from <= auth.length) {
      let comma = auth.indexOf(',', from);
      if (comma < 0) comma = auth.length;
      const eq = auth.indexOf('=', from);
      // `name=value`, the name not empty; a later repeat of a name wins, as a record's would.
      if (eq > from && eq < comma) {
        const name = auth.slice(from, eq).trim();
        if (name === 'Credential') credential = auth.slice(eq + 1, comma).trim();
        else if (name === 'SignedHeaders') signedHeaders = auth.slice(eq + 1, comma).trim();
        else if (name === 'Signature') signature = auth.slice(eq + 1, comma).trim();
      }
      from = comma + 1;
    }
  }
  let problem: string | undefined;
  if (!credential || !signature || !signedHeaders || date === undefined) {
    const missing: string[] = [];
    if (!credential) missing.push("Authorization header requires 'Credential' parameter.");
    if (!signature) missing.push("Authorization header requires 'Signature' parameter.");
    if (!signedHeaders) missing.push("Authorization header requires 'SignedHeaders' parameter.");
    if (date === undefined)
      missing.push("Authorization header requires existence of either a 'X-Amz-Date' or a 'Date' header.");
    problem = `${missing.join(' ')} Authorization=${auth}`;
  }
  return { credential, signedHeaders, signature, problem };
}

interface NormalAuthority {
  readonly region: string;
  readonly byKey: Map<string, AwsCredentialIdentity>;
}
/** Per authority object: a server passes the same one on every request. */
const normalized = new WeakMap<object, NormalAuthority>();
function normalizeAuthority(a: IamAuthority | AwsCredentialIdentity): NormalAuthority {
  let n = normalized.get(a);
  if (!n) {
    n = buildAuthority(a);
    normalized.set(a, n);
  }
  return n;
}
function buildAuthority(a: IamAuthority | AwsCredentialIdentity): NormalAuthority {
  const list =
    'accessKeyId' in a ? [a] : [...(a.principals ?? []), ...(a.credentials ? [a.credentials] : [])];
  return {
    region: ('region' in a && typeof a.region === 'string' && a.region) || DEFAULT_API_REGION,
    byKey: new Map(list.map((c) => [c.accessKeyId, c])),
  };
}

type HeaderMap = ReadonlyMap<string, readonly string[]>;

function isHeaderMap(h: ReceivedRequest['headers']): h is HeaderMap {
  return h instanceof Map;
}

/** A record's headers by lower-case name, the values of names that differ only in case joined in order. */
function lowerCaseHeaders(h: Readonly<Record<string, string | readonly string[]>>): HeaderMap {
  const headers = new Map<string, readonly string[]>();
  for (const k in h) {
    const v = h[k];
    const name = k.toLowerCase();
    const values = typeof v === 'string' ? [v] : v;
    const seen = headers.get(name);
    headers.set(name, seen === undefined ? values : [...seen, ...values]);
  }
  return headers;
}

/** One header's value as a client reads it: repeated values joined by commas. */
function headerValue(headers: HeaderMap, name: string): string | undefined {
  const v = headers.get(name);
  return v === undefined ? undefined : v.length === 1 ? v[0] : v.join(',');
}

/** The first value of a query parameter, by its decoded name. */
function queryParam(pairs: readonly (readonly [string, string])[], name: string): string | undefined {
  for (const [k, v] of pairs) if (k === name) return v;
  return undefined;
}

const NO_PAIRS: readonly [string, string][] = [];

/**
 * Checks a request as API Gateway's IAM authorization would: the Authorization header or a
 * presigned query string, the credential scope (day, region, `execute-api`), the clock, the
 * key and session token, then the signature over the client's own canonical request.
 * Synchronous, no closures made per call; never throws.
 */
export function verifyRequest(
  r: ReceivedRequest,
  authority: IamAuthority | AwsCredentialIdentity,
  now = new Date(),
): Verdict {
  const { region, byKey } = normalizeAuthority(authority);
  const headers = isHeaderMap(r.headers) ? r.headers : lowerCaseHeaders(r.headers);
  // The raw path and the raw query (after the first `?`).
  const q = r.target.indexOf('?');
  const path = q < 0 ? r.target : r.target.slice(0, q);
  const pairs = q < 0 || q === r.target.length - 1 ? NO_PAIRS : queryPairs(r.target.slice(q + 1));

  // Where the signature is: the Authorization header, else a presigned query string.
  let parts: SignatureParts;
  const auth = headerValue(headers, 'authorization');
  if (auth !== undefined) {
    const amzDate = headerValue(headers, 'x-amz-date');
    const httpDate = amzDate === undefined ? headerValue(headers, 'date') : undefined;
    const parsed = parseAuthorization(auth, amzDate ?? httpDate);
    if (parsed.problem) return deny('IncompleteSignatureException', parsed.problem);
    parts = {
      credential: parsed.credential,
      signedHeaders: parsed.signedHeaders,
      signature: parsed.signature,
      // A Date header stands in for X-Amz-Date, converted to the same basic ISO 8601 form.
      amzDate:
        amzDate ??
        (httpDate !== undefined && !Number.isNaN(Date.parse(httpDate))
          ? toAmzDate(new Date(httpDate))
          : httpDate),
      securityToken: headerValue(headers, 'x-amz-security-token'),
      presigned: false,
    };
  } else if (queryParam(pairs, 'X-Amz-Algorithm') !== undefined) {
    const missing = ['X-Amz-Credential', 'X-Amz-SignedHeaders', 'X-Amz-Signature', 'X-Amz-Date'].filter(
      (k) => !queryParam(pairs, k),
    );
    if (queryParam(pairs, 'X-Amz-Algorithm') !== ALGORITHM || missing.length > 0) {
      return deny(
        'IncompleteSignatureException',
        `AWS query-string parameters must include 'X-Amz-Algorithm' (${ALGORITHM}), ${missing.map((k) => `'${k}'`).join(', ') || 'and a supported algorithm'}. Re-examine the query-string parameters.`,
      );
    }
    parts = {
      credential: queryParam(pairs, 'X-Amz-Credential') ?? '',
      signedHeaders: queryParam(pairs, 'X-Amz-SignedHeaders') ?? '',
      signature: queryParam(pairs, 'X-Amz-Signature') ?? '',
      amzDate: queryParam(pairs, 'X-Amz-Date'),
      securityToken: queryParam(pairs, 'X-Amz-Security-Token'),
      expires: queryParam(pairs, 'X-Amz-Expires'),
      presigned: true,
    };
  } else {
    return deny('MissingAuthenticationTokenException', MISSING_TOKEN);
  }

  const when = parseAmzDate(parts.amzDate);
  if (!when) {
    return deny(
      'IncompleteSignatureException',
      `Date must be in ISO-8601 'basic format'. Got '${parts.amzDate}'. See http://en.wikipedia.org/wiki/ISO_8601`,
    );
  }
  // A valid X-Amz-Date is already in basic form; only a Date header's value is converted above.
  const amzDate = parts.amzDate as string;
  const scope = parts.credential.split('/');
  if (scope.length !== 5 || scope.includes('')) {
    return deny(
      'IncompleteSignatureException',
      `Credential must have exactly 5 slash-delimited elements, e.g. keyid/date/region/service/term, got '${parts.credential}'`,
    );
  }
  const [keyId, day, scopeRegion, service, terminator] = scope;
  if (day !== amzDate.slice(0, 8)) {
    return deny(
      'InvalidSignatureException',
      `Date in Credential scope does not match YYYYMMDD from ISO-8601 version of date from HTTP: '${day}' != '${amzDate.slice(0, 8)}', from '${amzDate}'.`,
    );
  }
  if (scopeRegion !== region)
    return deny(
      'InvalidSignatureException',
      `Credential should be scoped to a valid region, not '${scopeRegion}'. `,
    );
  if (service !== SERVICE)
    return deny(
      'InvalidSignatureException',
      `Credential should be scoped to correct service: '${SERVICE}'. `,
    );
  if (terminator !== 'aws4_request') {
    return deny(
      'InvalidSignatureException',
      `Credential should be scoped with a valid terminator: 'aws4_request', not '${terminator}'. `,
    );
  }
  const signed = parts.signedHeaders.split(';');
  if (!signed.includes('host')) {
    return deny(
      'IncompleteSignatureException',
      "'Host' or ':authority' must be a 'SignedHeader' in the AWS Authorization.",
    );
  }
  // The clock: 5 minutes either way for a header signature; a presigned URL until it expires.
  const t = now.getTime();
  if (when.getTime() - t > MAX_CLOCK_SKEW_MS) {
    return deny(
      'InvalidSignatureException',
      `Signature not yet current: ${amzDate} is still later than ${amzDateAt(t + MAX_CLOCK_SKEW_MS)} (${amzDateAt(t)} + 5 min.)`,
    );
  }
  if (parts.presigned && parts.expires !== undefined) {
    const expires = Number(parts.expires);
    if (!(Number.isInteger(expires) && expires >= 1 && expires <= MAX_PRESIGN_EXPIRES_S)) {
      return deny(
        'IncompleteSignatureException',
        `X-Amz-Expires must be an integer from 1 to ${MAX_PRESIGN_EXPIRES_S} seconds, got '${parts.expires}'.`,
      );
    }
    if (t > when.getTime() + expires * 1000) {
      return deny(
        'InvalidSignatureException',
        `Signature expired: ${amzDate} is now earlier than ${amzDateAt(t - expires * 1000)} (${amzDateAt(t)} - ${expires} sec.)`,
      );
    }
  } else if (t - when.getTime() > MAX_CLOCK_SKEW_MS) {
    return deny(
      'InvalidSignatureException',
      `Signature expired: ${amzDate} is now earlier than ${amzDateAt(t - MAX_CLOCK_SKEW_MS)} (${amzDateAt(t)} - 5 min.)`,
    );
  }
  // The key must be one the lab issued, with exactly the session token it was issued with.
  const principal = byKey.get(keyId);
  if (!principal || (principal.sessionToken ?? undefined) !== (parts.securityToken ?? undefined))
    return deny('UnrecognizedClientException', INVALID_TOKEN);
  if (!SIGNATURE_HEX.test(parts.signature)) {
    return deny(
      'IncompleteSignatureException',
      `Signature must be 64 lower-case hexadecimal characters, got '${parts.signature}'.`,
    );
  }

  try {
    return compare(r, parts, signed, principal, headers, path, pairs, amzDate, scope);
  } catch {
    // Whatever cannot be canonicalized (a lone surrogate in a value) cannot carry a valid signature.
    return deny('InvalidSignatureException', SIGNATURE_MISMATCH);
  }
}

const SIGNATURE_HEX = /^[0-9a-f]{64}$/;
const amzDateAt = (ms: number) => toAmzDate(new Date(ms));

/** Rebuilds the canonical request from what the client sent and compares signatures in constant time. */
function compare(
  r: ReceivedRequest,
  parts: SignatureParts,
  signed: readonly string[],
  principal: AwsCredentialIdentity,
  headers: HeaderMap,
  path: string,
  pairs: readonly [string, string][],
  amzDate: string,
  scope: readonly string[],
): Verdict {
  const [, day, scopeRegion, service] = scope;
  let canonicalHeaders = '';
  for (const h of signed) canonicalHeaders += `${h}:${canonicalValue(headers.get(h) ?? [])}\n`;
  const body = r.body ?? '';
  // API Gateway hashes the body it received, whatever x-amz-content-sha256 claims.
  const payloadHash = body.length === 0 ? EMPTY_SHA256 : sha256Hex(body);
  const query =
    pairs.length === 0
      ? ''
      : canonicalQuery(parts.presigned ? pairs.filter(([k]) => k !== 'X-Amz-Signature') : pairs);
  const canonicalRequest = `${r.method.toUpperCase()}\n${canonicalUri(path)}\n${query}\n${canonicalHeaders}\n${parts.signedHeaders}\n${payloadHash}`;
  const stringToSign = `${ALGORITHM}\n${amzDate}\n${day}/${scopeRegion}/${service}/aws4_request\n${sha256Hex(canonicalRequest)}`;
  const expected = hmacSha256(signingKey(principal.secretAccessKey, day, scopeRegion, service), stringToSign);
  if (!timingSafeEqual(expected, Buffer.from(parts.signature, 'hex'))) {
    // As API Gateway does, the answer shows what it signed, so a client can find its difference.
    return deny(
      'InvalidSignatureException',
      `${SIGNATURE_MISMATCH}\n\nThe Canonical String for this request should have been\n'${canonicalRequest}'\n\nThe String-to-Sign should have been\n'${stringToSign}'\n`,
    );
  }
  return { ok: true };
}
