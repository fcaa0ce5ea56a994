// @ts-check
/**
 * SigV4 signing for the lab API (service `execute-api`), in plain JavaScript so the
 * Artillery processor can load it as is; local/auth/sigv4.ts adds types and verification.
 */
import { Hash } from '@smithy/hash-node';
import { HttpRequest } from '@smithy/protocol-http';
import { SignatureV4 } from '@smithy/signature-v4';

export const SERVICE = 'execute-api';

/**
 * @typedef {{ accessKeyId: string, secretAccessKey: string, sessionToken?: string }} Credentials
 * @typedef {{ method: string, url: string, headers: Record<string, string>, body?: string }} SignableRequest
 */

// One signer per key and region: it caches the derived signing key, which is most of the cost.
/** @type {Map<string, SignatureV4>} */
const signers = new Map();

/** @param {Credentials} credentials @param {string} region */
export function signerFor(credentials, region) {
  const key = [
    credentials.accessKeyId,
    credentials.secretAccessKey,
    credentials.sessionToken ?? '',
    region,
  ].join('\u0000');
  let s = signers.get(key);
  if (!s) {
    s = new SignatureV4({
      credentials,
      region,
      service: SERVICE,
      sha256: Hash.bind(null, 'sha256'),
      // API Gateway's canonical path is the URI-encoded path, as the SDKs send it.
      uriEscapePath: true,
    });
    signers.set(key, s);
  }
  return s;
}

/** @param {Date} d */
const toAmzDate = (d) => d.toISOString().replace(/[:-]|\.\d{3}/g, '');

/** @param {SignableRequest} r @param {Date} [signingDate] */
export function toHttpRequest(r, signingDate) {
  const url = new URL(r.url);
  // A name given twice is signed with both values (SigV4 sorts them), not the last one alone.
  /** @type {Record<string, string | string[]>} */
  const query = {};
  for (const [k, v] of url.searchParams) {
    const seen = query[k];
    query[k] = seen === undefined ? v : [...(Array.isArray(seen) ? seen : [seen]), v];
  }
  /** @type {Record<string, string>} */
  const headers = {};
  for (const [k, v] of Object.entries(r.headers)) headers[k.toLowerCase()] = v;
  headers.host = url.host;
  if (signingDate) headers['x-amz-date'] = toAmzDate(signingDate);
  return new HttpRequest({
    method: r.method.toUpperCase(),
    protocol: url.protocol,
    hostname: url.hostname,
    port: url.port ? Number(url.port) : undefined,
    path: url.pathname,
    query,
    headers,
    body: r.body,
  });
}

/**
 * Returns the headers to add: authorization, x-amz-date, x-amz-content-sha256 and the session token.
 * @param {SignableRequest} r @param {Credentials} credentials @param {string} region
 * @returns {Promise<Record<string, string>>}
 */
export async function signRequest(r, credentials, region) {
  const signed = await signerFor(credentials, region).sign(toHttpRequest(r));
  /** @type {Record<string, string>} */
  const out = {};
  const given = new Set(Object.keys(r.headers).map((k) => k.toLowerCase()));
  for (const [k, v] of Object.entries(signed.headers)) {
    if (k === 'host' || given.has(k.toLowerCase())) continue;
    out[k] = v;
  }
  return out;
}
