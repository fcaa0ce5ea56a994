import { describe, expect, it } from 'vitest';
import {
  type ReceivedRequest,
  type SignableRequest,
  signRequest,
  verifyRequest,
} from '../../local/auth/sigv4';

const creds = { accessKeyId: 'local', secretAccessKey: 'local-secret' };
const base: SignableRequest = {
  method: 'POST',
  url: 'http://127.0.0.1:3100/lab/dynamodb/person',
  headers: { 'content-type': 'application/json' },
  body: '{"GovId":"A1"}',
};

/** What the server sees of a client's request: its target and headers, Host among them. */
function received(r: SignableRequest, extra: Record<string, string> = {}): ReceivedRequest {
  const u = new URL(r.url);
  return {
    method: r.method,
    target: `${u.pathname}${u.search}`,
    headers: { host: u.host, ...r.headers, ...extra },
    body: r.body,
  };
}

async function signed(r: SignableRequest = base, c = creds): Promise<ReceivedRequest> {
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
});
