/**
 * Fuzzes the lab's Redis as clients reach it: redis-server with a password behind the network
 * model's TLS (the redis target's front), with RESP from redis-grammar.ts written on a TLS 1.2
 * or 1.3 connection that trusts the lab CA. For each input: the connection answers and ends
 * within the budget once the client is done, every byte back is a whole RESP reply (errors as
 * `-CODE message`), then redis-server and the network model are the same live processes, the
 * key written before holds its value, and a well-formed GET on a new connection still answers.
 */
import { randomBytes } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import tls from 'node:tls';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CACHE_DIR } from '../../core/paths';
import {
  type NetworkModelProcess,
  startNetworkModelProcess,
} from '../../local/network/network-model-process';
import { ensureCertificates } from '../../local/tls/certificates';
import { type RedisEngine, startRedis } from '../../targets/redis/engine';
import { KEEP_KEY, KEEP_VALUE, type RespInput, resp, respInput } from './redis-grammar';
import { alive, assertRuns, type FuzzRuns, Tally, within } from './support/fuzz-runs';

/** A TLS handshake and a few commands on loopback: well under a second. */
const BUDGET_MS = 1_000;
const DEADLINE_MS = 3 * BUDGET_MS;
/** Silence after which a client stops waiting for more replies. */
const QUIET_MS = 200;

type Reply = { readonly type: string; readonly text?: string; readonly items?: Reply[] };

/** One RESP2/RESP3 reply at `at`: the reply and where the next starts, or undefined if incomplete or malformed. */
function readReply(b: Buffer, at: number): { reply: Reply; next: number } | undefined {
  const eol = b.indexOf('\r\n', at);
  if (eol === -1) return undefined;
  const type = String.fromCharCode(b[at]);
  const line = b.subarray(at + 1, eol).toString('latin1');
  const after = eol + 2;
  switch (type) {
    case '+':
    case '-':
    case ':':
    case '_':
    case ',':
    case '#':
    case '(':
      return { reply: { type, text: line }, next: after };
    case '$':
    case '!':
    case '=': {
      const n = Number(line);
      if (!Number.isInteger(n) || n < -1) return undefined;
      if (n === -1) return { reply: { type }, next: after };
      if (b.length < after + n + 2 || b.toString('latin1', after + n, after + n + 2) !== '\r\n')
        return undefined;
      return { reply: { type, text: b.toString('utf8', after, after + n) }, next: after + n + 2 };
    }
    case '*':
    case '~':
    case '>':
    case '%':
    case '|': {
      const n = Number(line);
      if (!Number.isInteger(n) || n < -1) return undefined;
      const count = type === '%' || type === '|' ? n * 2 : n;
      const items: Reply[] = [];
      let next = after;
      for (let i = 0; i < count; i += 1) {
        const r = readReply(b, next);
        if (!r) return undefined;
        items.push(r.reply);
        next = r.next;
      }
      return { reply: { type, items }, next };
    }
    default:
      return undefined;
  }
}

/** Every reply in the bytes, or undefined when they are not whole RESP replies. */
function replies(b: Buffer): Reply[] | undefined {
  const out: Reply[] = [];
  for (let at = 0; at < b.length; ) {
    const r = readReply(b, at);
    if (!r) return undefined;
    out.push(r.reply);
    at = r.next;
  }
  return out;
}

/**
 * A server to fuzz: how to start it and how a client authenticates. Another target's engine (its
 * own users, cluster mode) gets the same inputs and the same checks.
 */
export interface FuzzedServer {
  /** How messages and the tally name it. */
  readonly name: string;
  start(): Promise<Pick<RedisEngine, 'port' | 'pid' | 'stop'>>;
  /** The AUTH frame the generated inputs send when they authenticate. */
  auth(): Buffer;
  /** The AUTH frame that may write and read KEEP_KEY (the checks'). @default auth */
  checkAuth?(): Buffer;
}

function redisServer(): FuzzedServer {
  const password = randomBytes(18).toString('base64url');
  return {
    name: 'redis',
    start: () => startRedis({ password }),
    auth: () => resp(['AUTH', 'default', password]),
  };
}

export function describeRedisFuzz(runs: FuzzRuns, server: FuzzedServer = redisServer()): void {
  describe(`fuzzing the lab's ${server.name} over TLS (${runs.tier} tier)`, () => {
    let engine: Pick<RedisEngine, 'port' | 'pid' | 'stop'>;
    let model: NetworkModelProcess;
    let ca: Buffer;
    const tally = new Tally(server.name);
    beforeAll(async () => {
      const certs = await ensureCertificates(join(CACHE_DIR, 'tls'));
      ca = await readFile(certs.caCertPath);
      engine = await server.start();
      model = await startNetworkModelProcess({
        upstreamHost: '127.0.0.1',
        upstreamPort: engine.port,
        rttMs: 0,
        tls: certs,
      });
      const set = await exchange(Buffer.concat([checkAuth(), resp(['SET', KEEP_KEY, KEEP_VALUE])]));
      expect(replies(set)?.map((r) => r.text)).toEqual(['OK', 'OK', 'OK']);
    }, 60_000);
    afterAll(async () => {
      console.log(tally.line(runs));
      await model?.close();
      await engine?.stop();
    });

    const auth = () => server.auth();
    const checkAuth = () => (server.checkAuth ?? server.auth)();

    /**
     * Writes the bytes and a QUIT on a new TLS connection and reads until the server has closed
     * it. Redis answers QUIT and closes; a frame still incomplete swallows the QUIT, so after
     * QUIET_MS without a byte the client ends the connection itself. (Not at once: the network
     * model drops replies still on their way when the client half-closes, see the report.)
     */
    function exchange(bytes: Buffer, version: tls.SecureVersion = 'TLSv1.3'): Promise<Buffer> {
      return new Promise((resolve, reject) => {
        const socket = tls.connect({
          host: '127.0.0.1',
          servername: 'localhost',
          port: model.port,
          ca,
          minVersion: version,
          maxVersion: version,
        });
        const chunks: Buffer[] = [];
        let quiet: NodeJS.Timeout | undefined;
        const wait = () => {
          clearTimeout(quiet);
          quiet = setTimeout(() => socket.end(), QUIET_MS);
        };
        socket.on('data', (c: Buffer) => {
          chunks.push(c);
          wait();
        });
        socket.on('error', (err: NodeJS.ErrnoException) => {
          // Redis drops a connection after a protocol error: the error reply came first.
          if (err.code === 'ECONNRESET' || err.code === 'EPIPE') return;
          reject(err);
        });
        socket.on('close', () => {
          clearTimeout(quiet);
          resolve(Buffer.concat(chunks));
        });
        socket.on('secureConnect', () => {
          socket.write(Buffer.concat([bytes, resp(['QUIT'])]));
          wait();
        });
      });
    }

    async function stillWhole(pids: { redis: number; model: number }): Promise<void> {
      expect(alive(engine.pid) && engine.pid === pids.redis, `the ${server.name} server process`).toBe(true);
      expect(alive(model.pid) && model.pid === pids.model, 'the network model process').toBe(true);
      const got = await within(
        DEADLINE_MS,
        'reading the key written before',
        exchange(Buffer.concat([checkAuth(), resp(['GET', KEEP_KEY])])),
      );
      expect(replies(got)?.map((r) => r.text)).toEqual(['OK', KEEP_VALUE, 'OK']);
    }

    it(
      `answers ${runs.numRuns} generated RESP inputs within the budget in whole replies, losing nothing`,
      async () => {
        const pids = { redis: engine.pid, model: model.pid };
        await assertRuns(
          runs,
          fc.asyncProperty(respInput, async (input: RespInput) => {
            const bytes = Buffer.concat([...(input.auth ? [auth()] : []), ...input.frames]);
            const label = `${input.tls} ${JSON.stringify(bytes.toString('latin1').slice(0, 300))}`;
            let answer: Buffer;
            try {
              answer = await within(DEADLINE_MS, label, exchange(bytes, input.tls));
            } catch (err) {
              tally.add(String(err).includes('no answer within') ? 'hang' : 'connection error');
              throw err;
            }
            const all = replies(answer);
            expect(
              all,
              `${label} -> ${JSON.stringify(answer.toString('latin1').slice(0, 200))}`,
            ).toBeDefined();
            const errors = (all ?? []).filter((r) => r.type === '-');
            for (const e of errors) expect(e.text, label).toMatch(/^[A-Z]+ ?/);
            const last = errors.at(-1)?.text?.split(' ')[0];
            tally.add(last ? `ends with -${last}` : `${all?.length} replies`);
            await stillWhole(pids);
          }),
        );
      },
      runs.numRuns * 2 * DEADLINE_MS + 30_000,
    );
  });
}
