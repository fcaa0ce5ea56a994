/**
 * Fuzzes the running local lab's HTTP layer itself, below any client library: raw bytes on
 * a plain socket to 127.0.0.1. Each case must end in an answer (or a closed connection)
 * and leave the lab serving: a good signed request still answers 201, then 200.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { LOCAL_CALLER, type RunningLab, startLab } from '../../local/lab';
import { itFuzzesTheApi } from '../fuzz/api-gateway-fuzz';
import { FAST } from '../fuzz/support/fuzz-runs';
import {
  person,
  type RawExchange,
  rawExchange,
  rawRequest,
  scanTables,
  signedRawRequest,
} from '../support/lab-http';
import { LAB_TEST_CONTEXT } from '../support/lab-test-context';

const BASE = '/dynamodb/keepalive-on/person';
const CASE_MS = 30_000;

/** Deterministic bytes (a linear congruential generator): a failure replays exactly. */
function junk(seed: number, length: number): Buffer {
  const out = Buffer.alloc(length);
  let x = seed;
  for (let i = 0; i < length; i += 1) {
    x = (x * 1103515245 + 12345) >>> 0;
    out[i] = x >>> 24;
  }
  return out;
}

const amzDate = () => new Date().toISOString().replace(/[:-]|\.\d{3}/g, '');

describe('fuzzing the local lab over raw sockets', () => {
  let lab: RunningLab;
  let port: number;
  let stage: string;
  let written = 0;
  let invocations = 0;
  beforeAll(async () => {
    lab = await startLab({
      port: 0,
      context: LAB_TEST_CONTEXT,
      onFunctionLog: (_fn, line) => {
        if (line.startsWith('START ')) invocations += 1;
      },
    });
    const u = new URL(lab.url);
    port = Number(u.port);
    stage = u.pathname;
  }, 120_000);
  afterAll(async () => {
    await lab?.stop();
  });

  const send = (
    payload: string | Buffer | readonly (string | Buffer)[],
    opts?: Parameters<typeof rawExchange>[2],
  ) => rawExchange(port, payload, opts);
  const signed = (method: string, path: string, body = '', opts?: Parameters<typeof signedRawRequest>[4]) =>
    signedRawRequest(lab.url, method, path, body, opts);
  /** A request line and headers for the lab, as text, unsigned. */
  const head = (requestLine: string, headers: string[] = [`Host: 127.0.0.1:${port}`]) =>
    `${[requestLine, ...headers].join('\r\n')}\r\n\r\n`;
  const jsonBody = (r: RawExchange) => r.text.slice(r.text.indexOf('\r\n\r\n') + 4);

  /** The lab still creates and reads a person after the case. */
  async function stillServes(): Promise<void> {
    written += 1;
    const id = `HTTP-FUZZ-${written}`;
    const created = await rawRequest(lab, 'POST', BASE, JSON.stringify(person(id)));
    expect(created.status, created.text).toBe(201);
    const got = await rawRequest(lab, 'GET', `${BASE}/${id}`);
    expect(got.status, got.text).toBe(200);
  }

  it(
    'refuses malformed Host headers on forged and unsigned requests with 403, never crashing',
    async () => {
      const now = amzDate();
      const forged = [
        `X-Amz-Date: ${now}`,
        `Authorization: AWS4-HMAC-SHA256 Credential=${LOCAL_CALLER.accessKeyId}/${now.slice(0, 8)}/us-east-1/execute-api/aws4_request, SignedHeaders=host;x-amz-date, Signature=${'a'.repeat(64)}`,
        'Content-Length: 0',
      ];
      for (const host of [
        'a b[',
        '[::1',
        '127.0.0.1:99999999',
        '%%%',
        'user:pass@x',
        '::::',
        'x/y?z#w',
        '\u00ff',
      ]) {
        const r = await send(head(`POST ${stage}${BASE} HTTP/1.1`, [`Host: ${host}`, ...forged]));
        expect(r.statuses, JSON.stringify(host)).toEqual([403]);
        expect(r.text, host).toContain('x-amzn-errortype: InvalidSignatureException');
        const anon = await send(head(`GET ${stage}${BASE}/X1 HTTP/1.1`, [`Host: ${host}`]));
        expect(anon.statuses, host).toEqual([403]);
        expect(anon.text, host).toContain('x-amzn-errortype: MissingAuthenticationTokenException');
      }
      // A good signature over one Host, sent with another: the Host is part of what is signed.
      const moved = (await signed('POST', BASE, JSON.stringify(person('HTTP-MOVED')))).replace(
        /\r\nhost: [^\r]+/,
        '\r\nhost: elsewhere.invalid',
      );
      expect((await send(moved)).statuses).toEqual([403]);
      await stillServes();
    },
    CASE_MS,
  );

  it(
    'answers a missing Host: 400 on HTTP/1.1, 403 on a signed HTTP/1.0 request that lost it',
    async () => {
      const noHost = await send(head(`GET ${stage}${BASE}/X1 HTTP/1.1`, []));
      expect(noHost.statuses).toEqual([400]);
      const request = await signed('GET', `${BASE}/X1`);
      const http10 = request.replace(' HTTP/1.1\r\n', ' HTTP/1.0\r\n').replace(/\r\nhost: [^\r]+/, '');
      const r = await send(http10);
      expect(r.statuses).toEqual([403]);
      expect(r.text).toContain('InvalidSignatureException');
      await stillServes();
    },
    CASE_MS,
  );

  it(
    'serves absolute-form targets like origin-form ones and refuses targets that are neither',
    async () => {
      const body = JSON.stringify(person('HTTP-ABSOLUTE'));
      const created = await send(await signed('POST', BASE, body, { target: `${lab.url}${BASE}` }));
      expect(created.statuses, created.text).toEqual([201]);
      written += 1;
      const got = await send(
        await signed('GET', `${BASE}/HTTP-ABSOLUTE`, '', { target: `${lab.url}${BASE}/HTTP-ABSOLUTE` }),
      );
      expect(got.statuses).toEqual([200]);
      expect(JSON.parse(jsonBody(got))).toMatchObject({ person: { GovId: 'HTTP-ABSOLUTE' } });
      for (const target of ['*', 'ftp://127.0.0.1/x', 'mailto:x@y', 'http://[::1', 'x']) {
        const r = await send(head(`GET ${target} HTTP/1.1`));
        expect(r.statuses, target).toEqual([400]);
      }
      // CONNECT's authority-form target is not a path on the API.
      expect((await send(head(`CONNECT 127.0.0.1:${port} HTTP/1.1`))).statuses).toEqual([400]);
      await stillServes();
    },
    CASE_MS,
  );

  it(
    'answers invalid chunked encoding and conflicting framing with 400',
    async () => {
      const chunked = (body: string) =>
        head(`POST ${stage}${BASE} HTTP/1.1`, [`Host: 127.0.0.1:${port}`, 'Transfer-Encoding: chunked']) +
        body;
      for (const body of [
        'zz\r\nhello\r\n0\r\n\r\n',
        'ffffffffffffffffffff\r\nx\r\n',
        '5\r\nhelloXX0\r\n\r\n',
        '-1\r\n',
      ]) {
        const r = await send(chunked(body));
        expect(r.statuses, JSON.stringify(body)).toEqual([400]);
        expect(jsonBody(r)).toBe('{"message":"Bad Request"}');
      }
      const both = head(`POST ${stage}${BASE} HTTP/1.1`, [
        `Host: 127.0.0.1:${port}`,
        'Content-Length: 5',
        'Transfer-Encoding: chunked',
      ]);
      expect((await send(`${both}0\r\n\r\n`)).statuses).toEqual([400]);
      const twoLengths = head(`POST ${stage}${BASE} HTTP/1.1`, [
        `Host: 127.0.0.1:${port}`,
        'Content-Length: 2',
        'Content-Length: 3',
      ]);
      expect((await send(`${twoLengths}{}`)).statuses).toEqual([400]);
      await stillServes();
    },
    CASE_MS,
  );

  it(
    'survives a Content-Length larger than the body followed by a hang-up or silence, invoking nothing',
    async () => {
      const before = invocations;
      const request = await signed('POST', BASE, JSON.stringify(person('HTTP-SHORT')));
      const cut = request.replace(/\r\ncontent-length: \d+/, '\r\ncontent-length: 100000').slice(0, -10);
      // Half-closed: the request can never complete, so it gets its 400 and the connection ends.
      const r = await send(cut, { hangUp: true, timeoutMs: 3000 });
      expect(r.closed).toBe(true);
      expect(r.statuses).toEqual([400]);
      // The same, but the client stays silent, then leaves.
      const silent = await send(cut, { timeoutMs: 300 });
      expect(silent.statuses).toEqual([]);
      expect(invocations).toBe(before);
      await stillServes();
    },
    CASE_MS,
  );

  it(
    'answers absurd header sizes with 431',
    async () => {
      const line = `GET ${stage}${BASE}/X1 HTTP/1.1`;
      const huge = await send(head(line, [`Host: 127.0.0.1:${port}`, `X-Big: ${'a'.repeat(100_000)}`]));
      expect(huge.statuses).toEqual([431]);
      const many = Array.from({ length: 5000 }, (_, i) => `X-H${i}: v`);
      expect((await send(head(line, [`Host: 127.0.0.1:${port}`, ...many]))).statuses).toEqual([431]);
      const longTarget = await send(head(`GET ${stage}${BASE}/${'x'.repeat(100_000)} HTTP/1.1`));
      expect(longTarget.statuses).toEqual([431]);
      const longName = await send(head(line, [`Host: 127.0.0.1:${port}`, `${'N'.repeat(50_000)}: v`]));
      expect(longName.statuses).toEqual([431]);
      await stillServes();
    },
    CASE_MS,
  );

  it(
    'answers unknown and odd methods: 400 for what HTTP cannot parse, 403 for what no route has',
    async () => {
      for (const method of ['FOO', 'get', 'G ET', 'GÉT', '']) {
        const r = await send(head(`${method} ${stage}${BASE}/X1 HTTP/1.1`));
        expect(r.statuses, JSON.stringify(method)).toEqual([400]);
      }
      for (const method of ['PROPFIND', 'MKCOL', 'PURGE', 'OPTIONS', 'TRACE']) {
        const r = await send(await signed(method, `${BASE}/X1`));
        expect(r.statuses, method).toEqual([403]);
        expect(r.text, method).toContain('MissingAuthenticationTokenException');
      }
      await stillServes();
    },
    CASE_MS,
  );

  it(
    'answers pipelined requests in order, and a good request before junk keeps its answer',
    async () => {
      // Node's server runs pipelined requests at once; only the answers' order is HTTP's
      // promise. So the one read is of a person that exists before the pipeline starts.
      const id = 'HTTP-PIPE';
      expect((await rawRequest(lab, 'POST', BASE, JSON.stringify(person(id)))).status).toBe(201);
      written += 1;
      const three = [
        await signed('POST', BASE, JSON.stringify(person('HTTP-PIPE-2'))),
        await signed('GET', `${BASE}/${id}`),
        await signed('GET', `${BASE}/HTTP-NOBODY`),
      ];
      const r = await send(three.join(''), { expect: 3 });
      expect(r.statuses).toEqual([201, 200, 404]);
      written += 1;
      // The junk starts with a NUL: no method begins with one, so the parser fails right there.
      const thenJunk = await send(
        [await signed('GET', `${BASE}/${id}`), Buffer.concat([Buffer.from([0]), junk(7, 63)])],
        {
          expect: 2,
        },
      );
      expect(thenJunk.statuses).toEqual([200, 400]);
      // Half a request line, then a half-close: the good request is answered first.
      const thenHalf = await send([await signed('GET', `${BASE}/${id}`), 'GET /lab'], {
        hangUp: true,
        expect: 2,
      });
      expect(thenHalf.statuses).toEqual([200, 400]);
      await stillServes();
    },
    CASE_MS,
  );

  it(
    'answers binary junk with 400 or a closed connection, never anything else',
    async () => {
      const payloads: Buffer[] = [
        ...[1, 2, 3, 4, 5].map((seed) => junk(seed, 512)),
        Buffer.from([0x16, 0x03, 0x01, 0x02, 0x00, 0x01, 0x00, 0x01, 0xfc, 0x03, 0x03]), // a TLS ClientHello
        Buffer.from('PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n'), // the HTTP/2 preface
        Buffer.concat([
          Buffer.from(`POST ${stage}${BASE} HTTP/1.1\r\n`),
          junk(9, 200),
          Buffer.from('\r\n\r\n'),
        ]),
        Buffer.from(`GET ${stage}${BASE}/a\u0000b HTTP/1.1\r\nHost: x\r\n\r\n`),
        Buffer.from(`GET ${stage}${BASE}/X1 HTTP/1.1\r\nHost: x\r\nBad\u0001Name: v\r\n\r\n`),
        Buffer.from(`GET ${stage}${BASE}/X1 HTTP/1.1\r\nHost: x\r\nX-A: v\u0000v\r\n\r\n`),
        Buffer.from(`GET ${stage}${BASE}/X1 HTTP/9.9\r\nHost: x\r\n\r\n`),
        Buffer.from('\r\n\r\n\r\n'),
      ];
      for (const [i, payload] of payloads.entries()) {
        const r = await send(payload, { hangUp: i % 2 === 1, timeoutMs: 2000 });
        expect(
          r.statuses.every((s) => s === 400),
          `payload ${i}: ${r.text.slice(0, 80)}`,
        ).toBe(true);
        expect(r.statuses.length, `payload ${i}`).toBeLessThanOrEqual(1);
      }
      await stillServes();
      // Nothing but what the cases meant to create reached the table.
      const ids = (await scanTables(lab)).map((row) => /"GovId":\{"S":"([^"]+)"/.exec(row)?.[1]);
      expect(ids.every((id) => id?.startsWith('HTTP-'))).toBe(true);
      expect(ids).toHaveLength(written);
    },
    CASE_MS,
  );

  // Generated requests (fast-check, seed-fixed): last, since they write people the cases above
  // count as strays.
  itFuzzesTheApi(() => lab, FAST);
});
