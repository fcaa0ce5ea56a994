/**
 * The host's 1-minute load average, sampled until stopped: what a run's environments competed
 * with for CPU. A load run (loadtest/run-load.ts) and an experiment's scorecard both read it.
 */
import { availableParallelism, loadavg } from 'node:os';

/** How often the load average is sampled, ms. */
const SAMPLE_MS = 5000;

export interface HostLoadSummary {
  readonly cores: number;
  readonly loadAvg1m: { readonly min: number; readonly mean: number; readonly max: number };
}

export function sampleHostLoad(everyMs = SAMPLE_MS): { stop(): HostLoadSummary } {
  const samples = [loadavg()[0]];
  const timer = setInterval(() => samples.push(loadavg()[0]), everyMs).unref();
  return {
    stop() {
      clearInterval(timer);
      samples.push(loadavg()[0]);
      const round = (n: number) => Math.round(n * 100) / 100;
      return {
        cores: availableParallelism(),
        loadAvg1m: {
          min: round(Math.min(...samples)),
          mean: round(samples.reduce((a, b) => a + b, 0) / samples.length),
          max: round(Math.max(...samples)),
        },
      };
    },
  };
}
