/**
 * The highest arrival rate the local lab sustains: no errors, at least 95 % of the offered
 * rate served, and p99 under a second. Past the knee the host queues requests for free
 * environments, so errors stay at 0 while latency becomes queueing time, which a latency
 * lab must not report as a rate it sustains. Short steps find the knee; the best rate is
 * then held for the full duration, stepping down until it holds.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { runArtillery } from '../loadtest/artillery-runner';
import { localSigningEnv, type RunningLab } from '../local/lab';
import { type RunSummary, readArtilleryReport, summarizeRun } from '../runs/results';

/** Beyond this p99 the machine is queueing, not serving. */
export const MAX_P99_MS = 1000;

export interface RateStep {
  readonly rate: number;
  readonly durationS: number;
  readonly run: RunSummary;
  readonly sustained: boolean;
}

async function step(lab: RunningLab, rate: number, durationS: number, dir: string): Promise<RateStep> {
  const outJson = join(dir, `rate-${rate}-${durationS}s.json`);
  await runArtillery({
    operation: 'create',
    labTarget: 'dynamodb',
    target: lab.url,
    basePath: '/dynamodb/keepalive-on',
    durationS,
    ratePerS: rate,
    outJson,
    env: {
      ...localSigningEnv(),
      LAB_TIMINGS_FILE: join(dir, 'timings.jsonl'),
      LAB_GOVIDS_FILE: join(dir, 'govids.csv'),
    },
  });
  const run = summarizeRun(readArtilleryReport(outJson));
  const sustained =
    run.errors === 0 &&
    run.requests >= 0.95 * rate * durationS &&
    (run.latencyMs?.p99 ?? Infinity) < MAX_P99_MS;
  return { rate, durationS, run, sustained };
}

export async function findMaxRate(
  lab: RunningLab,
  opts: { probeS: number; holdS: number; rates: readonly number[]; log: (s: RateStep) => void },
): Promise<{ best?: RateStep; steps: RateStep[] }> {
  const dir = mkdtempSync(join(tmpdir(), 'lab-max-rate-'));
  const steps: RateStep[] = [];
  try {
    let candidate: number | undefined;
    for (const rate of opts.rates) {
      const s = await step(lab, rate, opts.probeS, dir);
      steps.push(s);
      opts.log(s);
      if (!s.sustained) break;
      candidate = rate;
    }
    while (candidate !== undefined && candidate > 0) {
      const s = await step(lab, candidate, opts.holdS, dir);
      steps.push(s);
      opts.log(s);
      if (s.sustained) return { best: s, steps };
      candidate = Math.floor(candidate * 0.8);
    }
    return { steps };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
