/**
 * Comparisons across a report's groups: keep-alive off against on, and the targets side by side.
 */
import { baselineTarget, TARGETS, targetLabel, targetNotice } from '../../core/lab-functions';
import { compareTargets as compareRun, type TargetComparison as RunComparison } from '../../runs/comparison';
import { targetFigure } from '../article-figures';
import {
  type GroupReport,
  type KeepAliveComparison,
  LAYERS,
  type Layer,
  type LayerRatio,
  type P50P99,
  type TargetComparison,
  type TargetRow,
} from '../report-model';
import { byRank, PHASE_ORDER, VARIANT_ORDER } from './groups';

export function compareKeepAlive(groups: readonly GroupReport[]): KeepAliveComparison[] {
  const out: KeepAliveComparison[] = [];
  const seen = new Set<string>();
  for (const g of groups) {
    const key = `${g.target}\u0000${g.phase}\u0000${g.memoryMb}`;
    if (seen.has(key)) continue;
    seen.add(key);
    const same = (x: GroupReport) =>
      x.target === g.target && x.phase === g.phase && x.memoryMb === g.memoryMb;
    const off = groups.find((x) => same(x) && x.keepAlive === 'off');
    const on = groups.find((x) => same(x) && x.keepAlive === 'on');
    if (!off || !on) continue;
    const layers: LayerRatio[] = [];
    for (const layer of LAYERS) {
      const a = off.layers.find((l) => l.layer === layer)?.ladder;
      const b = on.layers.find((l) => l.layer === layer)?.ladder;
      if (!a || !b || b.p50 <= 0 || b.p99 <= 0) continue;
      layers.push({
        layer,
        offP50: a.p50,
        onP50: b.p50,
        ratioP50: a.p50 / b.p50,
        offP99: a.p99,
        onP99: b.p99,
        ratioP99: a.p99 / b.p99,
      });
    }
    if (layers.length > 0) out.push({ target: g.target, phase: g.phase, layers });
  }
  return out;
}

/** How messages name a target: its registered label, or the key itself for one the lab does not know. */
export { targetLabel };

/** The input's targets in TARGET_INFO's order (DynamoDB first), unknown ones after them. */
export function targetsOf(groups: readonly GroupReport[]): string[] {
  return [...new Set(groups.map((g) => g.target))].sort((a, b) => byRank(TARGETS, a, b));
}

/** TARGET_INFO's notice of every target in the input, once each. */
export function targetNotices(groups: readonly GroupReport[]): string[] {
  return targetsOf(groups).flatMap((t) => {
    const notice = targetNotice(t);
    return notice ? [notice] : [];
  });
}

function p50p99(g: GroupReport, layer: Layer): P50P99 | null {
  const l = g.layers.find((x) => x.layer === layer)?.ladder;
  return l ? { p50: l.p50, p99: l.p99 } : null;
}

/**
 * The targets side by side, per phase and keep-alive variant, with each database p50 as a
 * multiple of the baseline target's (core/lab-functions.ts baselineTarget: DynamoDB, the
 * articles' reference, or the first target that ran without it). Empty for a run of one target; a phase and
 * variant only one target ran is left out, there is nothing to compare it with.
 */
export function compareTargets(groups: readonly GroupReport[]): TargetComparison[] {
  const targets = targetsOf(groups);
  if (targets.length < 2) return [];
  const slots = [
    ...new Map(groups.map((g) => [`${g.phase}\u0000${g.keepAlive}\u0000${g.memoryMb}`, g])).values(),
  ].sort(
    (a, b) =>
      byRank(PHASE_ORDER, a.phase, b.phase) ||
      byRank(VARIANT_ORDER, a.keepAlive, b.keepAlive) ||
      (a.memoryMb ?? 0) - (b.memoryMb ?? 0),
  );
  const out: TargetComparison[] = [];
  for (const { phase, keepAlive, memoryMb } of slots) {
    const members = targets.flatMap((t) =>
      groups.filter(
        (g) => g.target === t && g.phase === phase && g.keepAlive === keepAlive && g.memoryMb === memoryMb,
      ),
    );
    if (members.length < 2) continue;
    const baseline = baselineTarget(members.map((g) => g.target)) as string;
    const base = members.find((g) => g.target === baseline);
    const baseP50 = base ? p50p99(base, 'database')?.p50 : undefined;
    const rows = members.map((g): TargetRow => {
      const dbMs = p50p99(g, 'database');
      return {
        target: g.target,
        label: targetLabel(g.target),
        clientMs: p50p99(g, 'client'),
        functionMs: p50p99(g, 'function'),
        dbMs,
        dbRequestsP50: g.dbRequests?.p50 ?? null,
        dbRatioToBaseline: dbMs && baseP50 !== undefined && baseP50 > 0 ? dbMs.p50 / baseP50 : null,
        article: targetFigure(g.target),
        cost: g.cost ?? null,
      };
    });
    out.push({ phase, keepAlive, ...(memoryMb === null ? {} : { memoryMb }), baseline, rows });
  }
  return out;
}

/**
 * The run's comparison (runs/comparison.ts, as npm run load prints it) from the groups' client
 * and database ladders: for sources without summary.json's own (log files, CloudWatch).
 */
export function runComparisonOf(groups: readonly GroupReport[]): RunComparison | null {
  const ladder = (g: GroupReport, layer: Layer) => g.layers.find((l) => l.layer === layer)?.ladder;
  const rows = groups.flatMap((g) => {
    const client = ladder(g, 'client');
    if (!client || client.count === 0) return [];
    const db = ladder(g, 'database');
    return [
      {
        target: g.target,
        keepAlive: g.keepAlive,
        phase: g.phase,
        requests: g.requests ?? client.count,
        errors: g.errors ?? 0,
        latencyMs: { p50: client.p50, p99: client.p99 },
        dbMs: db && db.count > 0 ? { p50: db.p50, p99: db.p99 } : null,
      },
    ];
  });
  return compareRun(rows);
}
