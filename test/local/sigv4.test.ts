import { describe, expect, it } from 'vitest';
import {
  canonicalUri,
  type ReceivedRequest,
  type SignableRequest,
  signRequest,
  verifyRequest,
} from '../../local/auth/sigv4';
import { signerFor, toHttpRequest } from '../../local/auth/sigv4-signer.mjs';

const creds = { accessKeyId: 'local', secretAccessKey: 'local-secret' };
const base: SignableRequest = {
  method: 'POST',
  url: 'http://127.0.0.1:3100/lab/dynamodb/person',
  headers: { 'content-type': 'application/json' },
  body: '{"GovId":"A1"}',
};

/** What the server sees of a client's request: its target and headers (a record), Host among them. */
type ReceivedRecord = ReceivedRequest & { readonly headers: Record<string, string> };
function received(r: SignableRequest, extra: Record<string, string> = {}): ReceivedRecord {
  const u = new URL(r.url);
  return {
    method: r.method,
    target: `${u.pathname}${u.search}`,
    headers: { host: u.host, ...r.headers, ...extra },
    body: r.body,
  };
}

async function signed(r: SignableRequest = base, c = creds): Promise<ReceivedRecord> {
  return received(r, await signRequest(r, c, 'us-east-1'));
}

const amzDate = (d = new Date()) => d.toISOString().replace(/[:-]|\.\d{3}/g, '');

describe('SigV4 on the lab API', () => {
  it('accepts what the load driver signs, including paths that need escaping and queries', async () => {
    expect(await verifyRequest(await signed(), creds)).toEqual({ ok: true });
    const get: SignableRequest = {
      method: 'GET',
      url: 'http://127.0.0.1:3100/lab/dynamodb/person/A%2D1?x=1&y=a%20b',
      headers: {},
    };
    expect(await verifyRequest(await signed(get), creds)).toEqual({ ok: true });
  });

  it('signs a query name given twice with both values, as the server checks it (fuzzing found the last alone signed)', async () => {
    const twice: SignableRequest = {
      method: 'GET',
      url: 'http://127.0.0.1:3100/lab/dynamodb/person?govIdType=SSN&limit=2&govIdType=Passport',
      headers: {},
    };
    expect(await verifyRequest(await signed(twice), creds)).toEqual({ ok: true });
  });

  it('refuses anonymous, tampered, foreign and stale requests with 403', async () => {
    expect(await verifyRequest(received(base), creds)).toMatchObject({
      ok: false,
      status: 403,
      message: 'Missing Authentication Token',
    });
    const s = await signed();
    expect(await verifyRequest({ ...s, body: '{"GovId":"B2"}' }, creds)).toMatchObject({
      ok: false,
      message: expect.stringContaining('signature we calculated does not match'),
    });
    expect(await verifyRequest({ ...s, target: `${s.target}/x` }, creds)).toMatchObject({ ok: false });
    expect(await verifyRequest({ ...s, method: 'PUT' }, creds)).toMatchObject({ ok: false });
    const other = await signed(base, { accessKeyId: 'local', secretAccessKey: 'wrong' });
    expect(await verifyRequest(other, creds)).toMatchObject({ ok: false });
    const foreign = await signed(base, { accessKeyId: 'AKIDEXAMPLE', secretAccessKey: 'x' });
    expect(await verifyRequest(foreign, creds)).toMatchObject({
      ok: false,
      message: expect.stringContaining('token'),
    });
    const later = new Date(Date.now() + 6 * 60 * 1000);
    expect(await verifyRequest(s, creds, later)).toMatchObject({
      ok: false,
      message: expect.stringContaining('expired'),
    });
    const garbage = received({ ...base, headers: { authorization: 'Bearer abc' } });
    expect(await verifyRequest(garbage, creds)).toMatchObject({ ok: false, status: 403 });
  });

  it('names each failure as API Gateway does in x-amzn-errortype', async () => {
    const s = await signed();
    const errorType = async (r: ReceivedRequest) => {
      const v = await verifyRequest(r, creds);
      return v.ok ? 'ok' : v.errorType;
    };
    expect(await errorType(received(base))).toBe('MissingAuthenticationTokenException');
    expect(await errorType({ ...s, body: '{"GovId":"B2"}' })).toBe('InvalidSignatureException');
    expect(await errorType({ ...s, method: 'PUT' })).toBe('InvalidSignatureException');
    const wrongSecret = await signed(base, { accessKeyId: 'local', secretAccessKey: 'wrong' });
    expect(await errorType(wrongSecret)).toBe('InvalidSignatureException');
    expect(await errorType(received({ ...base, headers: { authorization: 'Bearer abc' } }))).toBe(
      'IncompleteSignatureException',
    );
    const cut = { ...s, headers: { ...s.headers, authorization: s.headers.authorization.slice(0, -10) } };
    expect(await errorType(cut)).toBe('IncompleteSignatureException');
  });

  it('verifies the Host header as a signed value and never parses it', async () => {
    const s = await signed();
    // Signed for one host, sent with another: a mismatch, not a different URL.
    expect(
      await verifyRequest({ ...s, headers: { ...s.headers, host: 'example.invalid' } }, creds),
    ).toMatchObject({ ok: false, errorType: 'InvalidSignatureException' });
    const { host: _host, ...noHost } = s.headers;
    expect(await verifyRequest({ ...s, headers: noHost }, creds)).toMatchObject({
      ok: false,
      errorType: 'InvalidSignatureException',
    });
    // Hosts no URL parser accepts, with a current date and the known key id: a 403, never a throw.
    const forged = {
      authorization: `AWS4-HMAC-SHA256 Credential=local/${amzDate().slice(0, 8)}/us-east-1/execute-api/aws4_request, SignedHeaders=host;x-amz-date, Signature=${'0'.repeat(64)}`,
      'x-amz-date': amzDate(),
    };
    for (const host of ['a b[', '[::1', 'x:99999999', '%%%', '\u0001', '']) {
      const r: ReceivedRequest = {
        method: 'POST',
        target: '/lab/dynamodb/person',
        headers: { host, ...forged },
      };
      expect(await verifyRequest(r, creds), JSON.stringify(host)).toMatchObject({
        ok: false,
        status: 403,
        errorType: 'InvalidSignatureException',
      });
    }
  });

  it("signs over the client's own canonical request: folded header values, its SignedHeaders, escapes signed twice", async () => {
    // Header values are trimmed and runs of spaces folded before signing (SigV4 reference,
    // canonical headers); the request goes out with the raw value.
    const spaced: SignableRequest = { ...base, headers: { ...base.headers, 'x-lab-note': '  a   b  ' } };
    expect(verifyRequest(await signed(spaced), creds)).toEqual({ ok: true });
    // An unsigned header added later is not part of the signature.
    const s = await signed();
    expect(verifyRequest({ ...s, headers: { ...s.headers, 'user-agent': 'x' } }, creds)).toEqual({
      ok: true,
    });
    // Every service but S3 encodes each path segment once more: the wire's %40 is signed as %2540.
    expect(canonicalUri('/lab/a%40b/./c/../d//e/')).toBe('/lab/a%2540b/d/e/');
    expect(canonicalUri('')).toBe('/');
  });

  it("takes the API server's headers (a Map by lower-case name, every value in a list) as it takes a record", async () => {
    const s = await signed({ ...base, headers: { ...base.headers, 'x-lab-tag': 'a' } });
    const asMap = (h: Record<string, string>, extra: [string, string][] = []) => {
      const m = new Map<string, string[]>();
      for (const [k, v] of [...Object.entries(h), ...extra]) {
        const seen = m.get(k.toLowerCase());
        if (seen) seen.push(v);
        else m.set(k.toLowerCase(), [v]);
      }
      return m;
    };
    expect(verifyRequest({ ...s, headers: asMap(s.headers) }, creds)).toEqual({ ok: true });
    expect(
      verifyRequest({ ...s, body: Buffer.from(String(s.body)), headers: asMap(s.headers) }, creds),
    ).toEqual({
      ok: true,
    });
    // A second value of a signed header was not signed: the joined value no longer matches.
    expect(verifyRequest({ ...s, headers: asMap(s.headers, [['X-Lab-Tag', 'b']]) }, creds)).toMatchObject({
      ok: false,
      errorType: 'InvalidSignatureException',
      message: expect.stringContaining('x-lab-tag:a,b\n'),
    });
    // A repeated X-Amz-Date reads as both values joined, which is no date.
    expect(
      verifyRequest({ ...s, headers: asMap(s.headers, [['x-amz-date', s.headers['x-amz-date']]]) }, creds),
    ).toMatchObject({ ok: false, errorType: 'IncompleteSignatureException' });
  });

  it('accepts a presigned URL until X-Amz-Expires runs out, then refuses it as expired', async () => {
    const at = new Date();
    const request = toHttpRequest({
      method: 'GET',
      url: 'http://127.0.0.1:3100/lab/dynamodb/person/A1',
      headers: {},
    });
    const presigned = await signerFor(creds, 'us-east-1').presign(request, {
      expiresIn: 60,
      signingDate: at,
    });
    const query = new URLSearchParams(presigned.query as Record<string, string>).toString();
    const r: ReceivedRequest = {
      method: 'GET',
      target: `${presigned.path}?${query}`,
      headers: { host: '127.0.0.1:3100' },
    };
    expect(verifyRequest(r, creds, new Date(at.getTime() + 30_000))).toEqual({ ok: true });
    expect(verifyRequest(r, creds, new Date(at.getTime() + 61_000))).toMatchObject({
      ok: false,
      errorType: 'InvalidSignatureException',
      message: expect.stringMatching(/^Signature expired: /),
    });
  });

  it('refuses a scope, region or token it did not issue, each with its own message', async () => {
    const authority = { region: 'us-east-1', principals: [creds, { ...fnCreds }] };
    const other = received(base, await signRequest(base, creds, 'eu-west-1'));
    expect(verifyRequest(other, authority)).toMatchObject({
      errorType: 'InvalidSignatureException',
      message: "Credential should be scoped to a valid region, not 'eu-west-1'. ",
    });
    const issued = received(base, await signRequest(base, fnCreds, 'us-east-1'));
    expect(verifyRequest(issued, authority)).toEqual({ ok: true });
    const forged = received(
      base,
      await signRequest(base, { ...fnCreds, sessionToken: 'forged' }, 'us-east-1'),
    );
    expect(verifyRequest(forged, authority)).toMatchObject({
      errorType: 'UnrecognizedClientException',
      message: 'The security token included in the request is invalid.',
    });
  });
});

const fnCreds = { accessKeyId: 'fn', secretAccessKey: 'fn-secret', sessionToken: 'issued-token' };
