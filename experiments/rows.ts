/**
 * Building "Article vs this run" rows: every row carries a finite measured number or says
 * why it has none, and its note says how ours compares with the article's and why.
 */

import { MISSING_TARGETS } from '../report/article-figures';
import type { ExperimentRow, RowKind, RowRole } from '../report/report-model';

/** How the local lab differs from the articles' clouds: the usual reason two numbers differ. */
export const LOCAL_MODEL_NOTE =
  'local lab: real engines on this machine behind the network model (the TLS version of the column’s conditions, the profile’s round trip and service time, connection set-up charged), not a cloud region';

/**
 * The cold-start model a step ran with (local/host/cold-start-model.ts), from its lab block's
 * line, for the note of a row that compares Init Durations.
 */
export function coldStartModelNote(lab: Readonly<Record<string, unknown>> | null | undefined): string {
  const line = lab?.coldStartModel;
  return typeof line === 'string'
    ? line
    : 'cold-start model not recorded: a deployed stack’s Init Duration is Lambda’s own';
}

export interface RowInput {
  readonly metric: string;
  /** the quantity compared: the article's and ours are the same one */
  readonly kind: RowKind;
  /** the statistic, the same for both (mean, p50, p99.22, share, single, ...) */
  readonly statistic: string;
  readonly article: number | null;
  readonly articleText: string;
  readonly measured: number | null | undefined;
  readonly unit: string;
  /** why ours and the article's agree or differ */
  readonly why: string;
  /** why there is no measured number, when there is none */
  readonly noMeasure?: string;
  /**
   * How the scorecard counts it. @default 'prediction' when the article gives a number; a row
   * whose figure fed a lab input is 'calibration', one that restates a chosen value 'setting'
   */
  readonly role?: RowRole;
  /** the named cause the scorecard prints when a prediction misses, or the input a calibration row fed. @default the why */
  readonly cause?: string;
}

/** `0.42x the article's`, or nothing when either side is missing. */
export function ratioText(measured: number | null | undefined, article: number | null): string {
  if (measured === null || measured === undefined || article === null || article === 0) return '';
  const r = measured / article;
  if (r > 0.8 && r < 1.25) return `agrees with the article (${r.toFixed(2)}x)`;
  return `${r.toFixed(2)}x the article's`;
}

/** A row; a missing or non-finite measurement becomes null with the reason in the note. */
export function row(i: RowInput): ExperimentRow {
  const ok = typeof i.measured === 'number' && Number.isFinite(i.measured);
  const measured = ok ? (i.measured as number) : null;
  const parts = ok
    ? [ratioText(measured, i.article), i.why]
    : [`no measured number: ${i.noMeasure ?? 'the run produced no samples for it'}`, i.why];
  return {
    metric: i.metric,
    kind: i.kind,
    statistic: i.statistic,
    article: i.article,
    articleText: i.articleText,
    measured,
    unit: i.unit,
    note: parts.filter(Boolean).join('; '),
    role: i.role ?? 'prediction',
    ...(i.cause ? { cause: i.cause } : {}),
  };
}

/** A target the article had and the lab cannot run: the article's figure, no measurement, and why. */
export function missingTargetRow(
  target: string,
  metric: string,
  article: number | null,
  articleText: string,
  unit: string,
  quantity: { readonly kind: RowKind; readonly statistic: string },
): ExperimentRow {
  const reason = MISSING_TARGETS[target] ?? 'not a target of this lab';
  return {
    metric,
    kind: quantity.kind,
    statistic: quantity.statistic,
    article,
    articleText,
    measured: null,
    unit,
    note: `no measured number: ${target === 'faunadb' ? 'FaunaDB' : target}: ${reason}`,
    role: 'gone',
  };
}

/** Mean of some numbers; null without any. */
export function mean(values: readonly number[]): number | null {
  return values.length === 0 ? null : values.reduce((s, v) => s + v, 0) / values.length;
}

/** Targets the article had that the lab does not (TARGETS), with the reason. */
export function missingTargets(
  articleTargets: readonly string[],
  labTargets: readonly string[],
): { target: string; reason: string }[] {
  return articleTargets
    .filter((t) => !labTargets.includes(t))
    .map((t) => ({ target: t, reason: MISSING_TARGETS[t] ?? 'not a target of this lab' }));
}

/**
 * The article-conditions rows with today's value beside each: `today` is the row at the same
 * place in today's rows (the same definition read them, so they line up), or the article run's
 * own value where nothing differed. A row whose quantity does not match stays without one.
 */
export function withTodayColumn(
  article: readonly ExperimentRow[],
  today: readonly ExperimentRow[],
  ranTwice: boolean,
): ExperimentRow[] {
  return article.map((r, i) => {
    if (!ranTwice)
      return {
        ...r,
        today: r.measured,
        todayNote: 'one run for both columns: no condition the lab applies differed',
      };
    const t = today[i];
    if (!t || t.kind !== r.kind || t.statistic !== r.statistic || t.unit !== r.unit)
      return { ...r, today: null, todayNote: 'today’s run has no row of this quantity here' };
    const same = t.measured === r.measured;
    return {
      ...r,
      today: t.measured,
      todayNote:
        t.measured === null
          ? `no number under today’s conditions: ${t.note}`
          : same
            ? 'the same value: the row reads runs made once (nothing differed for them)'
            : 'its own run under today’s conditions',
    };
  });
}
