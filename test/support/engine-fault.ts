/**
 * One engine killed mid-run under the local lab, as a database node dies: acknowledged creates
 * first, then SIGKILL, calls during the outage, a restart, and every acknowledged create read
 * back. The checks are the same for every target: bounded 503s that name the database and the
 * operation, service again within seconds, nothing acknowledged lost.
 */
import { performance } from 'node:perf_hooks';
import { expect } from 'vitest';
import type { Target } from '../../core/lab-functions';
import type { RunningLab } from '../../local/lab';
import { person, rawRequest } from './lab-http';

export interface FaultOutcome {
  readonly outage: readonly { status: number; ms: number; error?: string }[];
  readonly recoveredMs: number;
  readonly acknowledged: readonly string[];
}

export async function killEngineMidRun(
  lab: RunningLab,
  o: {
    readonly target: Target;
    /** e.g. `/redis/keepalive-on/person` */
    readonly base: string;
    /** How the 503s name the database, e.g. `Redis`. */
    readonly label: string;
    readonly idPrefix: string;
  },
): Promise<FaultOutcome> {
  const acknowledged: string[] = [];
  for (let i = 0; i < 20; i++) {
    const id = `${o.idPrefix}-ACK-${i}`;
    const r = await rawRequest(lab, 'POST', o.base, JSON.stringify(person(id)));
    expect(r.status, r.text).toBe(201);
    acknowledged.push(id);
  }
  const running = lab.targets.get(o.target);
  if (!running) throw new Error(`the lab does not run ${o.target}`);
  // SIGKILL: no clean shutdown; only what the engine made durable survives.
  process.kill(running.database.pid, 'SIGKILL');
  await new Promise((r) => setTimeout(r, 200));

  const outage: { status: number; ms: number; error?: string }[] = [];
  for (let i = 0; i < 4; i++) {
    const t = performance.now();
    const r = await rawRequest(
      lab,
      i % 2 ? 'GET' : 'POST',
      i % 2 ? `${o.base}/${acknowledged[1]}` : o.base,
      i % 2 ? undefined : JSON.stringify(person(`${o.idPrefix}-DOWN-${i}`)),
    );
    outage.push({ status: r.status, ms: performance.now() - t, error: r.json?.error as string | undefined });
  }
  for (const x of outage) {
    expect(x.status, JSON.stringify(x)).toBe(503);
    expect(x.error).toMatch(new RegExp(`^${o.label} (create|get) (failed|did not answer)`));
    // Ended by the handler (its 503 names the failure), not by the function timeout: a timed-out
    // invocation would answer 502/504 without this error. No wall time is asserted.
  }

  const restartedAt = performance.now();
  await lab.restartEngine(o.target);
  let recoveredMs = Number.NaN;
  for (let i = 0; i < 100; i++) {
    const r = await rawRequest(lab, 'GET', `${o.base}/${acknowledged[0]}`);
    if (r.status === 200) {
      recoveredMs = performance.now() - restartedAt;
      break;
    }
    await new Promise((res) => setTimeout(res, 100));
  }
  // Served again after the restart (the loop above gives it 100 tries); the time is returned, not asserted.
  expect(Number.isFinite(recoveredMs)).toBe(true);
  for (const id of acknowledged) {
    const r = await rawRequest(lab, 'GET', `${o.base}/${id}`);
    expect(r.status, id).toBe(200);
    expect((r.json?.person as { GovId?: string } | undefined)?.GovId).toBe(id);
  }
  return { outage, recoveredMs, acknowledged };
}

/** One line for the test log, the figures the closing notes quote. */
export function describeFault(label: string, f: FaultOutcome): string {
  return `${label} fault: outage answers ${f.outage.map((x) => `${x.status} in ${x.ms.toFixed(0)} ms`).join(', ')}; served again ${f.recoveredMs.toFixed(0)} ms after restart; ${f.acknowledged.length}/${f.acknowledged.length} acknowledged writes readable`;
}
