/**
 * Fuzzes the local API Gateway front (local/server/api-gateway.ts) and the functions behind it
 * with HTTP requests from a grammar of the lab's own API: a route of the assembly with its
 * `{govId}` filled with any text (percent-encoded), methods right and wrong, query strings,
 * extra and odd headers, Person bodies with fields of every wrong type and length, JSON that is
 * not a Person, bytes that are not JSON; SigV4-signed, unsigned, or signed and then changed.
 * For each input: an answer within the budget, never a 5xx, a JSON error body on a 4xx; then
 * every engine is the same live process, the person written before reads back as it was, and
 * a well-formed signed request still answers.
 */
import http from 'node:http';
import fc from 'fast-check';
import { expect, it } from 'vitest';
import { signRequest } from '../../local/auth/sigv4';
import { LOCAL_CALLER, type RunningLab } from '../../local/lab';
import { person } from '../support/lab-http';
import { alive, assertRuns, type FuzzRuns, Tally, within } from './support/fuzz-runs';

/** A warm function answers in milliseconds; a cold one on a loaded machine in seconds. */
const BUDGET_MS = 5_000;
const DEADLINE_MS = 3 * BUDGET_MS;
/** Written before the inputs; generated GovIds all start with `fz`, so none of them is this. */
const KEEP_ID = 'API-FUZZ-KEEP';

/** Half of a UTF-16 pair without its other half: no UTF-8 bytes can carry it. */
const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/g;

interface HttpInput {
  readonly method: string;
  readonly path: string;
  readonly headers: Record<string, string>;
  readonly body?: string | Buffer;
  readonly signing: 'signed' | 'unsigned' | 'body-changed' | 'signature-changed';
}

interface Answer {
  readonly status: number;
  readonly text: string;
}

const govId = fc
  .oneof(
    { weight: 3, arbitrary: fc.stringMatching(/^[A-Za-z0-9_-]{1,20}$/) },
    fc.string({ maxLength: 20 }),
    fc.string({ maxLength: 20, unit: 'grapheme' }),
    fc.constantFrom('..', '.', '%', '%2F', 'a/b', 'x'.repeat(70), '\u0000', ' ', '__proto__', 'constructor'),
  )
  // A URL carries UTF-8: a lone surrogate has no bytes to send.
  .map((s) => `fz${s}`.replace(LONE_SURROGATE, '\uFFFD'));
const encodeSegment = fc.tuple(govId, fc.boolean()).map(([id, encode]) =>
  // Unencoded, only what a request line may carry: the rest percent-encoded.
  encode ? encodeURIComponent(id) : id.replace(/[^A-Za-z0-9._~!$&'()*+,;=:@%-]/gu, encodeURIComponent),
);
const query = fc
  .array(
    fc.tuple(
      fc.constantFrom('govIdType', 'limit', 'GOVIDTYPE', 'offset', ''),
      fc.oneof(
        fc.constantFrom('Passport', 'Driver License', '0', '50', '51', '-1', 'ten', ''),
        fc.string({ maxLength: 8 }),
      ),
    ),
    { maxLength: 3 },
  )
  .map((kv) =>
    kv.length === 0
      ? ''
      : `?${kv.map(([k, v]) => `${encodeURIComponent(k)}=${encodeURIComponent(v)}`).join('&')}`,
  );

const fieldValue = fc.oneof(
  fc.string({ maxLength: 30 }),
  fc.constantFrom('', 'x'.repeat(201), '2024-02-30', '1815-12-10', 'Ada\nLovelace', '\u0000'),
  fc.integer(),
  fc.boolean(),
  fc.constant(null),
  fc.array(fc.string({ maxLength: 3 }), { maxLength: 2 }),
  fc.dictionary(fc.string({ maxLength: 3 }), fc.integer(), { maxKeys: 2, noNullPrototype: true }),
);
const FIELDS = ['GovId', 'FirstName', 'LastName', 'DOB', 'GovIdType', 'Address', 'Role', 'CreatedAt'];
const body = fc.oneof(
  {
    weight: 4,
    arbitrary: fc
      .tuple(
        govId,
        fc.option(
          fc.dictionary(fc.constantFrom(...FIELDS), fieldValue, { maxKeys: 3, noNullPrototype: true }),
          { nil: {}, freq: 2 },
        ),
        fc.array(fc.constantFrom(...FIELDS), { maxLength: 1 }),
      )
      .map(([id, changes, drop]) => {
        const p: Record<string, unknown> = { ...person(id), ...changes };
        for (const f of drop) delete p[f];
        return JSON.stringify(p);
      }),
  },
  { weight: 1, arbitrary: fc.json({ maxDepth: 3 }) },
  {
    weight: 1,
    arbitrary: fc.constantFrom(
      '',
      '{',
      'null',
      '[]',
      '{"Address":"x"}',
      '{"__proto__":{"x":1}}',
      '{"GovId":"fz1","GovId":}',
    ),
  },
  { weight: 1, arbitrary: fc.uint8Array({ maxLength: 64 }).map((b) => Buffer.from(b)) },
);
const headers = fc.dictionary(
  fc.constantFrom(
    'content-type',
    'x-forwarded-for',
    'accept',
    'x-custom',
    'content-encoding',
    'x-amz-target',
  ),
  fc.oneof(
    fc.constantFrom(
      'application/json',
      'text/plain',
      'application/x-www-form-urlencoded',
      'gzip',
      '20200101T000000Z',
      '*/*',
    ),
    fc.string({ maxLength: 20, unit: fc.constantFrom(...'abcXYZ012 ;=,/-_.') }),
  ),
  { maxKeys: 3, noNullPrototype: true },
);

/** A request to one of the lab's routes (or a near miss of one: another method, another path). */
function httpInput(routes: readonly { method: string; path: string }[]): fc.Arbitrary<HttpInput> {
  const fill = (template: string) =>
    fc
      .tuple(encodeSegment, query, fc.constantFrom('', '', '', '', '', '', '', '', '/', '/extra', '//'))
      .map(([id, q, tail]) => `${template.replace(/\{\w+\+?\}/g, id)}${tail}${q}`);
  const target = fc.oneof(
    {
      weight: 8,
      arbitrary: fc
        .constantFrom(...routes)
        .chain((r) => fill(r.path).map((path) => ({ method: r.method, path }))),
    },
    {
      weight: 1,
      arbitrary: fc
        .tuple(
          fc.constantFrom(
            'GET',
            'POST',
            'PUT',
            'PATCH',
            'DELETE',
            'HEAD',
            'OPTIONS',
            'TRACE',
            'PROPFIND',
            'get',
            'Post',
          ),
          fc.constantFrom(...routes).chain((r) => fill(r.path)),
        )
        .map(([method, path]) => ({ method, path })),
    },
    {
      weight: 1,
      arbitrary: fc
        .constantFrom('/', '/admin', '/dynamodb', '/%2e%2e/x')
        .map((path) => ({ method: 'GET', path })),
    },
  );
  return fc
    .record({
      target,
      headers,
      body: fc.option(body, { nil: undefined, freq: 4 }),
      signing: fc.oneof(
        { weight: 6, arbitrary: fc.constant('signed' as const) },
        {
          weight: 1,
          arbitrary: fc.constantFrom(
            'unsigned' as const,
            'body-changed' as const,
            'signature-changed' as const,
          ),
        },
      ),
    })
    .map(({ target: t, ...rest }) => ({ ...t, ...rest }) as HttpInput);
}

/** Sends the request exactly as given below the stage, signed as `signing` says. */
async function send(lab: RunningLab, input: HttpInput): Promise<Answer> {
  const u = new URL(lab.url);
  const url = `${lab.url}${input.path}`;
  const headers: Record<string, string> = { ...input.headers };
  if (input.signing !== 'unsigned') {
    Object.assign(
      headers,
      await signRequest(
        // Bytes as bytes: the signer hashes a Uint8Array as sent (a string of them would not be).
        { method: input.method, url, headers, body: input.body as string | undefined },
        LOCAL_CALLER,
        LOCAL_CALLER.region,
      ),
    );
  }
  if (input.signing === 'signature-changed' && headers.authorization)
    headers.authorization = headers.authorization.replace(/Signature=\w{4}/, 'Signature=0000');
  const sent = input.signing === 'body-changed' ? `${input.body?.toString() ?? ''} ` : input.body;
  // Node sends a GET's body with no framing at all unless told its length.
  if (sent !== undefined) headers['content-length'] = String(Buffer.byteLength(sent));
  return new Promise((resolve, reject) => {
    const req = http.request(
      { host: u.hostname, port: u.port, method: input.method, path: `${u.pathname}${input.path}`, headers },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () =>
          resolve({ status: res.statusCode ?? 0, text: Buffer.concat(chunks).toString('utf8') }),
        );
        res.on('error', reject);
      },
    );
    req.on('error', reject);
    req.end(sent);
  });
}

/** Registers the property: `lab` is read when the case runs (the file's beforeAll starts it). */
export function itFuzzesTheApi(lab: () => RunningLab, runs: FuzzRuns): void {
  it(
    `answers ${runs.numRuns} generated HTTP requests within the budget, never 5xx, losing nothing (${runs.tier} tier)`,
    async () => {
      const running = lab();
      const tally = new Tally('api-gateway');
      const routes = running.assembly.routes.filter((r) => r.path.includes('/person'));
      const base = routes.find((r) => r.method === 'POST' && r.path.endsWith('/keepalive-on/person'))?.path;
      expect(base).toBeDefined();
      const signed = (method: string, path: string, b?: string) =>
        send(running, {
          method,
          path,
          headers: { 'content-type': 'application/json' },
          body: b,
          signing: 'signed',
        });
      const created = await signed('POST', `${base}`, JSON.stringify(person(KEEP_ID)));
      expect([201, 409], created.text).toContain(created.status);
      const kept = JSON.parse((await signed('GET', `${base}/${KEEP_ID}`)).text).person;
      const pids = [...running.targets.values()].flatMap((t) => [t.database.pid, t.model.pid]);
      try {
        await assertRuns(
          runs,
          fc.asyncProperty(httpInput(routes), async (input) => {
            const label = `${input.method} ${input.path} ${input.signing} ${String(input.body ?? '').slice(0, 80)}`;
            let answer: Answer;
            try {
              answer = await within(DEADLINE_MS, label, send(running, input));
            } catch (err) {
              tally.add(String(err).includes('no answer within') ? 'hang' : 'connection error');
              throw err;
            }
            tally.add(String(answer.status));
            expect(answer.status, `${label} -> ${answer.text.slice(0, 200)}`).toBeLessThan(500);
            if (answer.status >= 400 && input.method !== 'HEAD') {
              const error = JSON.parse(answer.text) as Record<string, unknown>;
              expect(typeof (error.message ?? error.error), `${label} -> ${answer.text.slice(0, 200)}`).toBe(
                'string',
              );
            }
            for (const pid of pids) expect(alive(pid), `process ${pid}`).toBe(true);
            const read = await within(
              DEADLINE_MS,
              'reading the person written before',
              signed('GET', `${base}/${KEEP_ID}`),
            );
            expect(read.status, read.text).toBe(200);
            expect(JSON.parse(read.text).person).toEqual(kept);
          }),
        );
      } finally {
        console.log(tally.line(runs));
      }
    },
    runs.numRuns * 2 * DEADLINE_MS + 60_000,
  );
}
