import { describe, expect, it } from 'vitest';
import { type SignableRequest, signRequest, verifyRequest } from '../../local/auth/sigv4';

const creds = { accessKeyId: 'local', secretAccessKey: 'local-secret' };
const base: SignableRequest = {
  method: 'POST',
  url: 'http://127.0.0.1:3100/lab/dynamodb/person',
  headers: { 'content-type': 'application/json' },
  body: '{"GovId":"A1"}',
};

async function signed(r: SignableRequest = base, c = creds) {
  return { ...r, headers: { ...r.headers, ...(await signRequest(r, c, 'us-east-1')) } };
}

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
    expect(await verifyRequest(base, creds)).toMatchObject({
      ok: false,
      status: 403,
      message: 'Missing Authentication Token',
    });
    const s = await signed();
    expect(await verifyRequest({ ...s, body: '{"GovId":"B2"}' }, creds)).toMatchObject({
      ok: false,
      message: expect.stringContaining('signature we calculated does not match'),
    });
    expect(await verifyRequest({ ...s, url: `${base.url}/x` }, creds)).toMatchObject({ ok: false });
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
    const garbage: SignableRequest = { ...base, headers: { authorization: 'Bearer abc' } };
    expect(await verifyRequest(garbage, creds)).toMatchObject({ ok: false, status: 403 });
  });
});
