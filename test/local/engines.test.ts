import { execFile } from 'node:child_process';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { beforeAll, describe, expect, it } from 'vitest';
import {
  createTable,
  type EngineKind,
  FETCH_SCRIPT,
  type StartEngineOptions,
  startEngine,
} from '../../targets/dynamodb/engine';
import { cleanUpEngines, getFirstName, isRunning, putPerson, start, TABLE } from '../support/engine-tests';

cleanUpEngines();

function engineSuite(kind: EngineKind, timeoutMs: number): void {
  it(
    'starts on a free port, round-trips an item, and stop() ends the process',
    async () => {
      const engine = await start({ kind, port: 0 });
      expect(engine.kind).toBe(kind);
      expect(engine.endpoint).toBe(`http://127.0.0.1:${engine.port}`);
      expect(engine.port).toBeGreaterThan(0);
      expect(isRunning(engine.pid)).toBe(true);

      await createTable(engine.endpoint, TABLE);
      await createTable(engine.endpoint, TABLE); // idempotent
      await putPerson(engine.endpoint, 'P-1');
      expect(await getFirstName(engine.endpoint, 'P-1')).toBe('Ada');
      expect(await getFirstName(engine.endpoint, 'missing')).toBeUndefined();

      await engine.stop();
      expect(() => process.kill(engine.pid, 0)).toThrow(expect.objectContaining({ code: 'ESRCH' }));
      await engine.stop(); // idempotent
    },
    timeoutMs,
  );
}

describe('dynalite', () => {
  engineSuite('dynalite', 20_000);

  it('listens on the port it is given', async () => {
    const probe = await start({ kind: 'dynalite' });
    const port = probe.port;
    await probe.stop();
    const engine = await start({ kind: 'dynalite', port });
    expect(engine.port).toBe(port);
  }, 20_000);

  it('fails clearly, quoting the child, when the port is taken', async () => {
    const holder = await start({ kind: 'dynalite' });
    await expect(startEngine({ kind: 'dynalite', port: holder.port })).rejects.toThrow(
      /dynalite exited with code 1 before listening[\s\S]*EADDRINUSE/,
    );
  }, 20_000);
});

describe('dynamodb-local', () => {
  beforeAll(async () => {
    // Maven Central, on a cold machine only; a warm run returns at once.
    const t0 = Date.now();
    const { stdout } = await promisify(execFile)('bash', [FETCH_SCRIPT], {
      cwd: join(import.meta.dirname, '../..'),
    });
    console.info(`${FETCH_SCRIPT} took ${Date.now() - t0} ms: ${stdout.trim()}`);
  }, 240_000);

  engineSuite('dynamodb-local', 120_000);

  it('refuses a fixed port that is already in use', async () => {
    const holder = await start({ kind: 'dynalite' });
    await expect(startEngine({ kind: 'dynamodb-local', port: holder.port })).rejects.toThrow(
      `port ${holder.port} on 127.0.0.1 is already in use`,
    );
  }, 20_000);
});

describe('options', () => {
  it('rejects an unknown kind by name', async () => {
    const bad = { kind: 'mongo' } as unknown as StartEngineOptions;
    await expect(startEngine(bad)).rejects.toThrow(
      'startEngine: unknown engine kind "mongo"; expected one of: dynalite, dynamodb-local',
    );
  });

  it('rejects a bad port', async () => {
    await expect(startEngine({ kind: 'dynalite', port: 70_000 })).rejects.toThrow(/port must be an integer/);
    await expect(startEngine({ kind: 'dynalite', port: 1.5 })).rejects.toThrow(/port must be an integer/);
  });
});
