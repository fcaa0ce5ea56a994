/**
 * A finished step as the definitions read it (StepView): its summary rows, its handler
 * timings and its report's layers. Loaded after the run: it pulls in the HDR histograms.
 */
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { type KeepAliveVariant, type Operation, parseFunctionKey } from '../core/lab-functions';
import { reachedDatabase } from '../core/timing.mjs';
import { PREWARM_TIME_PATTERN } from '../lambda/shared/prewarm';
import type { LabReport, Layer } from '../report/report-model';
import { type Ladder, LatencyHistogram, ladderOf } from '../runs/latency-histogram';
import { type LabRow, readTimingLines } from '../runs/results';
import type { Call, CallFilter, StepPlan, StepView } from './types';

export function readStepView(
  plan: StepPlan,
  dir: string,
  rows: readonly LabRow[],
  wallS: number,
  report: LabReport | undefined,
): StepView {
  const read = (name: string) => {
    const file = join(dir, name);
    return (existsSync(file) ? readTimingLines(file) : [])
      .filter((l) => l.timing !== null && reachedDatabase(l.status, l.timing))
      .sort((a, b) => a.at - b.at);
  };
  const counted = read('timings.jsonl');
  const warmUps = read('warmup-timings.jsonl');
  const logFile = join(dir, 'lambda-logs.log');
  const logLines = existsSync(logFile) ? readFileSync(logFile, 'utf8').split('\n') : [];
  const groupOf = (target: string, variant: KeepAliveVariant, phase: Operation) =>
    report?.groups.find((x) => x.target === target && x.keepAlive === variant && x.phase === phase);
  return {
    plan,
    wallS,
    rows,
    lab: report?.lab ?? null,
    calls(f: CallFilter): readonly Call[] {
      return (f.warmUp ? warmUps : counted).flatMap((l): Call[] => {
        const t = l.timing;
        if (!t || l.target !== f.target) return [];
        if (f.variant !== undefined && l.variant !== f.variant) return [];
        if (f.phase !== undefined && l.phase !== f.phase) return [];
        if (f.coldStart !== undefined && t.coldStart !== f.coldStart) return [];
        if (f.newConnection !== undefined && t.newConnection !== f.newConnection) return [];
        return [
          {
            at: l.at,
            dbMs: t.dbMs,
            clientMs: l.clientMs,
            newConnection: t.newConnection,
            coldStart: t.coldStart,
            initType: t.initType,
            dbRequests: t.dbRequests,
            dbRoundTrips: t.dbRoundTrips ?? null,
            environment: t.environment ?? null,
          },
        ];
      });
    },
    ladder: (values: readonly number[]): Ladder | null => ladderOf(values),
    initCalls(target: string, variant: KeepAliveVariant, phase: Operation): readonly number[] {
      const out: number[] = [];
      for (const line of logLines) {
        const fn = /^\[([^\]]+)\] /.exec(line);
        const m = fn ? PREWARM_TIME_PATTERN.exec(line) : null;
        const p = fn ? parseFunctionKey(fn[1]) : undefined;
        if (
          m &&
          p?.target === target &&
          p.operation === phase &&
          (p.keepAlive ?? plan.variants[0]) === variant
        )
          out.push(Number(m[1]));
      }
      return out;
    },
    reportDurations(target: string, variant: KeepAliveVariant, phase: Operation): readonly number[] {
      const out: number[] = [];
      for (const line of logLines) {
        // run-load writes each function's lines as `[function] line`.
        const m = /^\[([^\]]+)\] REPORT RequestId: \S+\tDuration: ([\d.]+) ms/.exec(line);
        const p = m ? parseFunctionKey(m[1]) : undefined;
        if (
          m &&
          p?.target === target &&
          p.operation === phase &&
          (p.keepAlive ?? plan.variants[0]) === variant
        )
          out.push(Number(m[2]));
      }
      return out;
    },
    rungs: (values: readonly number[], percentiles: readonly number[]) =>
      new LatencyHistogram().recordAll(values).valuesAt(percentiles),
    layer(target: string, variant: KeepAliveVariant, phase: Operation, layer: Layer): Ladder | null {
      return groupOf(target, variant, phase)?.layers.find((l) => l.layer === layer)?.ladder ?? null;
    },
    group: groupOf,
    row: (target: string, variant: KeepAliveVariant, phase: Operation) =>
      rows.find((r) => r.target === target && r.keepAlive === variant && r.phase === phase),
  };
}
