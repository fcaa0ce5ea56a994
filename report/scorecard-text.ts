/**
 * A scorecard (experiments/scorecard.ts) in words: the same lines in the terminal, the report
 * and the docs. A leaf: it imports only the report's types.
 */
import type { HostLoad, Scorecard } from './report-model';

const pct = (n: number, of: number) => (of === 0 ? '–' : `${Math.round((100 * n) / of)}%`);

/** `figures 27, predictions 12, within ±30% 7 (58%), outside 5; calibration 4, settings 3, gone 8`. */
export function scorecardLine(c: Scorecard): string {
  const band = `±${Math.round(c.band * 100)}%`;
  return `figures ${c.figures}, predictions ${c.predictions}, within ${band} ${c.within} (${pct(c.within, c.predictions)}), outside ${c.outside.length}; not counted: calibration ${c.calibration}, settings ${c.settings}, gone ${c.gone}; lab-only rows ${c.labOnly}; article figures not reproduced ${c.notReproduced.length}`;
}

/** What the host's load means for the figures, in one line. */
export function hostLoadLine(l: HostLoad | null): string {
  if (!l) return 'host load: not sampled';
  const head = `host load: 1-min load average ${l.meanLoad.toFixed(1)} mean, ${l.maxLoad.toFixed(1)} max, on ${l.cores} cores`;
  return l.exceeded
    ? `${head}: above the cores, so environments waited for CPU beyond their share (a CPU share is a ceiling, not a guarantee); CPU-bound figures read high`
    : `${head}: within the cores`;
}

/** The scorecard as plain lines, with each miss and its cause. */
export function scorecardText(c: Scorecard): string {
  const lines = [`Scorecard: ${scorecardLine(c)}`, hostLoadLine(c.hostLoad)];
  for (const m of c.outside) {
    const ratio = m.ratio === null ? 'no measurement' : `${m.ratio.toFixed(2)}x`;
    lines.push(`  outside: ${m.metric} (${ratio}): ${m.cause}`);
  }
  for (const n of c.notReproduced) lines.push(`  not reproduced: ${n.figure}: ${n.reason}`);
  return lines.join('\n');
}
