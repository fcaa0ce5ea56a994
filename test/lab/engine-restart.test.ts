/**
 * An engine that dies or hangs while the lab runs (restartDeadEngines, as `npm run local` runs
 * it), for every target: dynalite (DynamoDB's default), QLDB, Redis and PostgreSQL behind the
 * DSQL front. Killed by PID in the middle of a stream of creates, it is noticed, said in a
 * `warning:` line, started again on the same port and data, and every create the API
 * acknowledged (201) before is read back. Stopped (SIGSTOP), it answers no health request: the
 * watchdog kills it and restarts it by the same path, and nothing is lost either.
 */
import { existsSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Target, targetLabel } from '../../core/lab-functions';
import { type RunningLab, startLab } from '../../local/lab';
import { dataRoot } from '../../local/run-dir';
import { writeUntilKilled } from '../support/kill-mid-stream';
import { person, rawRequest } from '../support/lab-http';

const TARGETS = ['dynamodb', 'qldb', 'redis', 'dsql', 'valkey'] as const satisfies readonly Target[];
const HEALTH_DEADLINE_MS = 2_000;

describe('an engine that dies or hangs is restarted with everything it acknowledged', () => {
  let lab: RunningLab;
  const lines: string[] = [];
  beforeAll(async () => {
    lab = await startLab({
      port: 0,
      context: { targets: TARGETS.join(',') },
      restartDeadEngines: true,
      healthIntervalMs: 500,
      healthDeadlineMs: HEALTH_DEADLINE_MS,
      log: (l) => lines.push(l),
    });
  }, 300_000);
  afterAll(async () => {
    await lab?.stop();
  });

  /** Waits for a log line after `from` (3x slack over the watch's own bounds); returns it. */
  async function lineAfter(from: number, pattern: RegExp, timeoutMs = 60_000): Promise<string> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const found = lines.slice(from).find((l) => pattern.test(l));
      if (found) return found;
      if (Date.now() > deadline) throw new Error(`no line ${pattern} in:\n${lines.slice(from).join('\n')}`);
      await new Promise((r) => setTimeout(r, 50));
    }
  }

  /** The request, again while it answers 5xx (the functions reconnect after a restart). */
  async function settled(method: string, path: string, body?: string) {
    let r = await rawRequest(lab, method, path, body);
    for (let i = 0; i < 50 && r.status >= 500; i++) {
      await new Promise((res) => setTimeout(res, 200));
      r = await rawRequest(lab, method, path, body);
    }
    return r;
  }

  /** Every id reads back 200 with itself. */
  async function expectAllThere(base: string, ids: readonly string[]): Promise<void> {
    for (const id of ids) {
      const r = await settled('GET', `${base}/${id}`);
      expect(r.status, `${id}: ${r.text}`).toBe(200);
      expect((r.json?.person as { GovId?: string } | undefined)?.GovId).toBe(id);
    }
  }

  describe.each(TARGETS)('%s', (target) => {
    const base = `/${target}/keepalive-on/person`;
    const label = targetLabel(target);
    // As a pattern: a label may hold parentheses (ElastiCache Serverless (Valkey)).
    const labelPattern = label.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
    // This target's restart, by a PID other than the one it replaced.
    const restartedLine = (old: number) =>
      new RegExp(
        `^warning: ${labelPattern}'s engine restarted \\(pid (?!${old}\\))\\d+\\); its data was kept$`,
      );
    const database = () => {
      const r = lab.targets.get(target);
      if (!r) throw new Error(`the lab does not run ${target}`);
      return r.database;
    };

    it('killed by PID mid-stream: restarted on the same port, no acknowledged create lost', async () => {
      const pid = database().pid;
      const port = database().upstreamPort;
      const from = lines.length;
      const id = (n: number) => `${target.toUpperCase()}-KILL-${n}`;
      const { acknowledged, killed } = await writeUntilKilled(
        async (n) => (await rawRequest(lab, 'POST', base, JSON.stringify(person(id(n))))).status === 201,
        () => process.kill(pid, 'SIGKILL'),
        { writers: 4, killAfter: 12, max: 200 },
      );
      expect(killed).toBe(true);
      expect(
        await lineAfter(from, new RegExp(`\\(pid ${pid}\\) died; starting it again on the same port$`)),
      ).toMatch(new RegExp(`^warning: ${labelPattern}'s engine`));
      await lineAfter(from, restartedLine(pid));
      expect(database().pid).not.toBe(pid);
      expect(database().upstreamPort).toBe(port);
      await expectAllThere(base, acknowledged.map(id));
    }, 180_000);

    it('hung (SIGSTOP): its health request times out, it is killed and restarted, nothing lost', async () => {
      const ids = [0, 1, 2].map((n) => `${target.toUpperCase()}-HUNG-${n}`);
      for (const id of ids) {
        const r = await settled('POST', base, JSON.stringify(person(id)));
        expect(r.status, r.text).toBe(201);
      }
      const pid = database().pid;
      const from = lines.length;
      process.kill(pid, 'SIGSTOP');
      try {
        const hung = await lineAfter(from, new RegExp(`\\(pid ${pid}\\) did not answer`));
        expect(hung).toContain(
          `warning: ${label}'s engine (pid ${pid}) did not answer its health request within ${HEALTH_DEADLINE_MS} ms`,
        );
        await lineAfter(from, restartedLine(pid));
      } finally {
        try {
          process.kill(pid, 'SIGCONT');
        } catch {
          // killed by the watchdog, as it should be
        }
      }
      // Only this engine was taken for hung, and the same path as a death: no second restart.
      expect(
        lines.slice(from).filter((l) => l.includes('did not answer') && !l.includes(`(pid ${pid})`)),
      ).toEqual([]);
      expect(lines.slice(from).filter((l) => l.includes(`(pid ${pid}) died`))).toEqual([]);
      expect(database().pid).not.toBe(pid);
      await expectAllThere(base, ids);
      const after = await settled('POST', base, JSON.stringify(person(`${target.toUpperCase()}-HUNG-9`)));
      expect(after.status, after.text).toBe(201);
    }, 180_000);
  });

  it("removes every engine's run data at stop (no --data)", async () => {
    const mine = () => readdirSync(dataRoot()).filter((n) => n.startsWith(`lab-run-${process.pid}`));
    const engineData = () =>
      mine().flatMap((n) =>
        existsSync(join(dataRoot(), n))
          ? readdirSync(join(dataRoot(), n)).filter((f) => f.startsWith('lab-'))
          : [],
      );
    expect(engineData().length).toBeGreaterThanOrEqual(TARGETS.length);
    await lab.stop();
    expect(engineData()).toEqual([]);
  }, 60_000);
});
