/**
 * Fuzzes the DSQL front (targets/dsql/front.ts, in front of a real PostgreSQL) two ways:
 * SQL from dsql-grammar.ts sent by the pg client on a fresh authenticated connection (simple
 * Query, or the extended protocol with parameters), and raw PostgreSQL wire messages on a plain
 * socket, before and after a good login. For each input: an answer within the budget (a result,
 * or an ErrorResponse with a SQLSTATE; on the wire, the connection answered and then ended once
 * the client was done), then the PostgreSQL server is the same live process, the fixture table
 * holds its rows, and a well-formed query on a new connection still answers.
 */
import net from 'node:net';
import fc from 'fast-check';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type DsqlLocal, startDsqlLocal } from '../support/dsql-local';
import {
  KEEP_TABLE,
  passwordMessage,
  type SqlInput,
  sqlInput,
  startupMessage,
  type WireInput,
  wireInput,
} from './dsql-grammar';
import { alive, assertRuns, type FuzzRuns, Tally, within } from './support/fuzz-runs';

/** A statement on a few rows, or a login: well under a second each. */
const BUDGET_MS = 1_000;
const DEADLINE_MS = 3 * BUDGET_MS;
const KEEP_ROWS = [
  { id: 1, v: 'one' },
  { id: 2, v: 'two' },
];

/** Backend messages as (type, body) pairs; undefined when the bytes are not whole messages. */
function backendMessages(bytes: Buffer): { type: string; body: Buffer }[] | undefined {
  const out: { type: string; body: Buffer }[] = [];
  let at = 0;
  // The one-byte answer to an SSLRequest or GSSENCRequest.
  while (at < bytes.length && bytes[at] === 0x4e /* N */ && (bytes.length - at === 1 || bytes[at + 1] !== 0))
    at += 1;
  while (at < bytes.length) {
    if (bytes.length - at < 5) return undefined;
    const length = bytes.readInt32BE(at + 1);
    if (length < 4 || at + 1 + length > bytes.length) return undefined;
    out.push({ type: String.fromCharCode(bytes[at]), body: bytes.subarray(at + 5, at + 1 + length) });
    at += 1 + length;
  }
  return out;
}

/** The SQLSTATE of an ErrorResponse body. */
function sqlstate(body: Buffer): string | undefined {
  const fields = body.toString('utf8').split('\0');
  return fields.find((f) => f.startsWith('C'))?.slice(1);
}

export function describeDsqlFuzz(runs: FuzzRuns): void {
  describe(`fuzzing the DSQL front (${runs.tier} tier)`, () => {
    let local: DsqlLocal;
    /** Signed once, then again before it expires (a slow run may outlast a token). */
    let tokens: ReturnType<DsqlLocal['tokens']>;
    const sqlTally = new Tally('dsql sql');
    const wireTally = new Tally('dsql wire');
    beforeAll(async () => {
      local = await startDsqlLocal();
      tokens = local.tokens('DbConnectAdmin');
      // Made by DSQL's admin through the front, as a user makes a table (one DDL, then the rows).
      const admin = await connect();
      try {
        await admin.query(`CREATE TABLE ${KEEP_TABLE} (id int PRIMARY KEY, v text)`);
        await admin.query(`INSERT INTO ${KEEP_TABLE} VALUES (1, 'one'), (2, 'two')`);
      } finally {
        await admin.end();
      }
    }, 120_000);
    afterAll(async () => {
      console.log(sqlTally.line(runs));
      console.log(wireTally.line(runs));
      await local?.stop();
    });

    /** A pg client straight to the front (the network model's TLS is not what is fuzzed here). */
    async function connect(): Promise<pg.Client> {
      const client = new pg.Client({
        host: '127.0.0.1',
        port: local.front.port,
        user: 'admin',
        database: 'postgres',
        password: await tokens.token(),
        connectionTimeoutMillis: DEADLINE_MS,
      });
      client.on('error', () => {});
      await client.connect();
      return client;
    }

    /** The same server process, and the fixture's rows read on a new connection through the front. */
    async function stillWhole(pid: number): Promise<void> {
      expect(alive(local.engine.pid) && local.engine.pid === pid, 'the PostgreSQL server process').toBe(true);
      const rows = await within(
        DEADLINE_MS,
        'reading the fixture table',
        (async () => {
          const client = await connect();
          try {
            return (await client.query(`SELECT id, v FROM ${KEEP_TABLE} ORDER BY id`)).rows;
          } finally {
            await client.end();
          }
        })(),
      );
      expect(rows).toEqual(KEEP_ROWS);
    }

    it(
      `answers ${runs.numRuns} generated SQL inputs within the budget with a result or a SQLSTATE, losing nothing`,
      async () => {
        const pid = local.engine.pid;
        await assertRuns(
          runs,
          fc.asyncProperty(sqlInput, async ({ sql, values }: SqlInput) => {
            const label = `${JSON.stringify(sql)}${values ? ` with ${JSON.stringify(values)}` : ''}`;
            const client = await within(DEADLINE_MS, `connecting for ${label}`, connect());
            try {
              await within(
                DEADLINE_MS,
                label,
                client.query(values ? { text: sql, values: [...values] } : sql),
              );
              sqlTally.add('ok');
            } catch (err) {
              const e = err as { code?: unknown; severity?: unknown; message?: string };
              if (String(err).includes('no answer within')) {
                sqlTally.add('hang');
                throw err;
              }
              if (typeof e.code === 'string' && /^[0-9A-Z]{5}$/.test(e.code)) {
                sqlTally.add(`${e.code}`);
              } else {
                sqlTally.add(`client error: ${e.message}`);
                // pg refuses some inputs itself (more values than parameters): not the front's doing.
                expect(e.severity, `${label} -> ${e.message}`).toBeUndefined();
                expect(String(e.message), label).not.toMatch(/terminated|ECONNRESET|closed/i);
              }
            } finally {
              await client.end().catch(() => undefined);
            }
            await stillWhole(pid);
          }),
        );
      },
      runs.numRuns * 3 * DEADLINE_MS + 30_000,
    );

    /**
     * One connection: `opening` is written and the client ends; then, once the front has said
     * ReadyForQuery to it, `after` in pieces of `piece` bytes (0: at once), then `last`. Resolves
     * with every byte the front sent once it closed the connection.
     */
    function exchange(
      opening: Buffer,
      after?: { bytes: Buffer; piece: number; last: 'end' | Buffer },
    ): Promise<Buffer> {
      return new Promise((resolve, reject) => {
        const socket = net.connect(local.front.port, '127.0.0.1');
        const chunks: Buffer[] = [];
        let sent = false;
        socket.on('data', (c: Buffer) => {
          chunks.push(c);
          if (!after || sent) return;
          const messages = backendMessages(Buffer.concat(chunks));
          if (!messages?.some((m) => m.type === 'Z')) return;
          sent = true;
          const { bytes, piece, last } = after;
          const step = piece > 0 ? piece : bytes.length;
          for (let at = 0; at < bytes.length; at += step) socket.write(bytes.subarray(at, at + step));
          if (last === 'end') socket.end();
          else socket.write(last);
        });
        socket.on('error', (err: NodeJS.ErrnoException) => {
          // The front may reset a connection it refuses mid-write: an answer too.
          if (err.code === 'ECONNRESET' || err.code === 'EPIPE') return;
          reject(err);
        });
        socket.on('close', () => resolve(Buffer.concat(chunks)));
        socket.on('connect', () => (after ? socket.write(opening) : socket.end(opening)));
      });
    }

    /** Whether the bytes are whole frontend messages (type, length of at least 4, body). */
    function wellFramed(bytes: Buffer): boolean {
      let at = 0;
      while (at < bytes.length) {
        if (bytes.length - at < 5) return false;
        const length = bytes.readInt32BE(at + 1);
        if (length < 4 || at + 1 + length > bytes.length) return false;
        at += 1 + length;
      }
      return true;
    }

    it(
      `answers ${runs.numRuns} generated wire inputs within the budget and ends the connection, losing nothing`,
      async () => {
        const pid = local.engine.pid;
        const startup = startupMessage([
          ['user', 'admin'],
          ['database', 'postgres'],
        ]);
        await assertRuns(
          runs,
          fc.asyncProperty(wireInput, async (input: WireInput) => {
            const login = Buffer.concat([startup, passwordMessage(await tokens.token())]);
            const bytes = Buffer.concat(input.phase === 'opening' ? input.bytes : input.messages);
            const label = `${input.phase} ${bytes.toString('hex').slice(0, 400)}`;
            let answer: Buffer;
            try {
              answer = await within(
                DEADLINE_MS,
                label,
                input.phase === 'opening'
                  ? exchange(bytes)
                  : exchange(login, {
                      bytes,
                      piece: input.split > 0 ? input.split * 7 + 1 : 0,
                      // Whole messages: Sync and Terminate after them, and the server ends the
                      // session once it has answered them all. A message still incomplete: the
                      // client gives up (ends), and the front must end the connection too.
                      last: wellFramed(bytes) ? Buffer.from([0x53, 0, 0, 0, 4, 0x58, 0, 0, 0, 4]) : 'end',
                    }),
              );
            } catch (err) {
              wireTally.add(String(err).includes('no answer within') ? 'hang' : 'socket error');
              throw err;
            }
            const messages = backendMessages(answer);
            if (input.phase === 'session') {
              // After a good login every byte back is a whole backend message.
              expect(messages, `${label} -> ${answer.toString('hex').slice(0, 200)}`).toBeDefined();
              expect(messages?.[0]?.type, label).toBe('R');
            }
            const errors = (messages ?? []).filter((m) => m.type === 'E').map((m) => sqlstate(m.body));
            for (const code of errors) expect(code, label).toMatch(/^[0-9A-Z]{5}$/);
            wireTally.add(
              errors.length > 0 ? `error ${errors[0]}` : `${messages?.length ?? 'unframed'} messages`,
            );
            await stillWhole(pid);
          }),
        );
      },
      runs.numRuns * 2 * DEADLINE_MS + 30_000,
    );
  });
}
