/**
 * The DSQL front and a client that resets while its token is being checked (issue 21): the
 * front must not open (or must close) the PostgreSQL connection for a client that is gone.
 * Before the fix each such client left a backend session open until the idle timeout.
 */
import net from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type DsqlLocal, startDsqlLocal } from '../support/dsql-local';

/** PostgreSQL's StartupMessage, protocol 3.0. */
function startup(params: Record<string, string>): Buffer {
  const body = Buffer.from(`${Object.entries(params).flat().join('\0')}\0\0`);
  const head = Buffer.alloc(8);
  head.writeInt32BE(8 + body.length, 0);
  head.writeInt32BE(196_608, 4);
  return Buffer.concat([head, body]);
}

/** A PasswordMessage ('p') carrying the token. */
function password(token: string): Buffer {
  const body = Buffer.from(`${token}\0`);
  const head = Buffer.alloc(5);
  head[0] = 0x70;
  head.writeInt32BE(4 + body.length, 1);
  return Buffer.concat([head, body]);
}

describe('the DSQL front, a client reset during the token check', () => {
  let dsql: DsqlLocal;
  beforeAll(async () => {
    dsql = await startDsqlLocal();
  }, 120_000);
  afterAll(async () => {
    await dsql?.stop();
  });

  const clientBackends = async (): Promise<number> => {
    const admin = await dsql.admin();
    try {
      const r = await admin.query<{ n: string }>(
        "SELECT count(*) AS n FROM pg_stat_activity WHERE backend_type = 'client backend' AND pid <> pg_backend_pid()",
      );
      return Number(r.rows[0]?.n);
    } finally {
      await admin.end();
    }
  };

  it('leaves no PostgreSQL session behind for clients that reset after sending a valid token', async () => {
    const token = await dsql.tokens('DbConnectAdmin').token();
    const before = await clientBackends();
    const CLIENTS = 20;
    for (let i = 0; i < CLIENTS; i++) {
      const socket = net.connect(dsql.front.port, '127.0.0.1');
      socket.on('error', () => {});
      await new Promise<void>((resolve) => socket.once('connect', () => resolve()));
      // Startup and token in one write, then a reset before the front can answer.
      socket.write(Buffer.concat([startup({ user: 'admin', database: 'postgres' }), password(token)]));
      await new Promise((r) => setImmediate(r));
      socket.resetAndDestroy();
    }
    // Every connection the front opened for them is closed again (a leak stays until the idle timeout, 60 s).
    await expect.poll(clientBackends, { timeout: 10_000, interval: 250 }).toBe(before);
    // They all reached the front: the resets happened during its check, not before it.
    expect(dsql.front.stats().accepted).toBeGreaterThanOrEqual(CLIENTS);
  }, 60_000);
});
