/**
 * The lab's watchdog (local/engine-watchdog.ts) over a real dynalite: a process that dies is
 * restarted; one that runs but no longer answers its health request (SIGSTOP) is killed after
 * the allowed misses and restarted by the same path; an engine that answers is left alone.
 */
import { afterEach, expect, it } from 'vitest';
import type { Target } from '../../core/lab-functions';
import { watchEngines } from '../../local/engine-watchdog';
import type { LocalDatabase } from '../../local/targets';
import { withEngine } from '../../local/targets/types';
import { type Engine, startEngine } from '../../targets/dynamodb/engine';
import { dynamoDbHealth } from '../../targets/dynamodb/health';

const cleanups: (() => Promise<void> | void)[] = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

async function watched(
  healthDeadlineMs: number,
): Promise<{ database: LocalDatabase; lines: string[]; restarts: () => number }> {
  let engine: Engine = await startEngine({ kind: 'dynalite' });
  let restarts = 0;
  const database = withEngine(() => engine, {
    description: 'dynalite',
    tables: [],
    nameOf: () => undefined,
    functionEnv: () => ({}),
    clientEnv: () => ({}),
    health: (signal) => dynamoDbHealth(engine.endpoint, signal),
    async restart() {
      await engine.stop();
      engine = await startEngine({ kind: 'dynalite', port: engine.port });
      restarts += 1;
    },
    stop: () => engine.stop(),
  });
  cleanups.push(() => database.stop());
  const lines: string[] = [];
  const watchdog = watchEngines({
    databases: new Map<Target, LocalDatabase>([['dynamodb', database]]),
    restarting: new Set(),
    log: (l) => lines.push(l),
    healthIntervalMs: 100,
    healthDeadlineMs,
  });
  cleanups.push(() => watchdog.stop());
  return { database, lines, restarts: () => restarts };
}

async function until(check: () => boolean, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!check()) {
    if (Date.now() > deadline) throw new Error(`not within ${timeoutMs} ms`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

it('kills an engine that stopped answering (SIGSTOP) and starts it again on the same port', async () => {
  const { database, lines, restarts } = await watched(400);
  const pid = database.pid;
  const port = database.upstreamPort;
  process.kill(pid, 'SIGSTOP');
  cleanups.push(() => {
    try {
      process.kill(pid, 'SIGCONT');
    } catch {
      // killed, as it should be
    }
  });
  // Two misses of 400 ms each at 100 ms intervals, then a restart: far more than 3x slack.
  await until(() => restarts() === 1, 15_000);
  expect(lines[0]).toBe(
    `warning: DynamoDB's engine (pid ${pid}) did not answer its health request within 400 ms, 2 times in a row (last: no answer): killing it and starting it again on the same port`,
  );
  expect(lines[1]).toMatch(/^warning: DynamoDB's engine restarted \(pid \d+\); its data was kept$/);
  expect(database.pid).not.toBe(pid);
  expect(database.upstreamPort).toBe(port);
  await dynamoDbHealth(database.endpoint, AbortSignal.timeout(5_000));
}, 30_000);

it('restarts an engine whose process died, and leaves one that answers alone', async () => {
  const { database, lines, restarts } = await watched(2_000);
  // Several health rounds with answers: nothing happens.
  await new Promise((r) => setTimeout(r, 700));
  expect(lines).toEqual([]);
  const pid = database.pid;
  process.kill(pid, 'SIGKILL');
  await until(() => restarts() === 1, 15_000);
  expect(lines[0]).toBe(`warning: DynamoDB's engine (pid ${pid}) died; starting it again on the same port`);
  expect(database.pid).not.toBe(pid);
}, 30_000);
