/**
 * The lab scores itself: each experiment's rows, counted by role. Only predictions count (a
 * figure no lab input was derived from); calibration, settings and services that are gone are
 * shown beside them and left out. Pure, apart from the load sampler at the end (core/host-load.ts).
 */
import { sampleHostLoad as sampleCoreHostLoad } from '../core/host-load';
import type { ExperimentRow, HostLoad, NotReproduced, Scorecard, ScoreMiss } from '../report/report-model';

/** A prediction within ±30% of the article's figure agrees with it (issue 39's band). */
export const SCORE_BAND = 0.3;

/** measured / article, when both are numbers and the article's is not 0. */
export function scoreRatio(r: ExperimentRow): number | null {
  if (r.article === null || r.article === 0 || r.measured === null) return null;
  return r.measured / r.article;
}

export function withinBand(r: ExperimentRow, band = SCORE_BAND): boolean {
  const ratio = scoreRatio(r);
  // 1e-9: 13 / 10 - 1 is 0.30000000000000004 in binary floating point.
  return ratio !== null && Math.abs(ratio - 1) <= band + 1e-9;
}

/** The cause a miss names: the row's own, else its note (which says why the figures differ). */
function causeOf(r: ExperimentRow): string {
  if (r.cause) return r.cause;
  return r.note.replace(/^(agrees with the article \([^)]*\)|[\d.]+x the article's);\s*/, '');
}

export function scoreRows(
  rows: readonly ExperimentRow[],
  hostLoad: HostLoad | null,
  notReproduced: readonly NotReproduced[] = [],
): Scorecard {
  const figures = rows.filter((r) => r.article !== null);
  const predictions = figures.filter((r) => r.role === 'prediction');
  const outside: ScoreMiss[] = predictions
    .filter((r) => !withinBand(r))
    .map((r) => ({
      metric: r.metric,
      article: r.article as number,
      measured: r.measured,
      ratio: scoreRatio(r),
      cause: causeOf(r),
    }));
  const count = (role: ExperimentRow['role']) => figures.filter((r) => r.role === role).length;
  return {
    band: SCORE_BAND,
    figures: figures.length,
    predictions: predictions.length,
    within: predictions.length - outside.length,
    outside,
    calibration: count('calibration'),
    settings: count('setting'),
    gone: count('gone'),
    labOnly: rows.length - figures.length,
    notReproduced,
    hostLoad,
  };
}

/** Several experiments' scorecards as one (npm run experiment -- all). */
export function combineScorecards(cards: readonly Scorecard[]): Scorecard {
  const sum = (pick: (c: Scorecard) => number) => cards.reduce((s, c) => s + pick(c), 0);
  const loads = cards.map((c) => c.hostLoad).filter((l): l is HostLoad => l !== null);
  return {
    band: SCORE_BAND,
    figures: sum((c) => c.figures),
    predictions: sum((c) => c.predictions),
    within: sum((c) => c.within),
    outside: cards.flatMap((c) => c.outside),
    calibration: sum((c) => c.calibration),
    settings: sum((c) => c.settings),
    gone: sum((c) => c.gone),
    labOnly: sum((c) => c.labOnly),
    notReproduced: cards.flatMap((c) => c.notReproduced),
    hostLoad:
      loads.length === 0
        ? null
        : {
            cores: loads[0].cores,
            meanLoad: loads.reduce((s, l) => s + l.meanLoad, 0) / loads.length,
            maxLoad: Math.max(...loads.map((l) => l.maxLoad)),
            exceeded: loads.some((l) => l.exceeded),
          },
  };
}

/** The host's load through an experiment, as its scorecard reports it. */
export function sampleHostLoad(): { stop(): HostLoad } {
  const sampler = sampleCoreHostLoad();
  return {
    stop() {
      const { cores, loadAvg1m } = sampler.stop();
      return { cores, meanLoad: loadAvg1m.mean, maxLoad: loadAvg1m.max, exceeded: loadAvg1m.max > cores };
    },
  };
}
