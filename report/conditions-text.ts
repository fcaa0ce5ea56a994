/**
 * An experiment's conditions in words (experiments/conditions.ts): the three columns' titles,
 * what each condition was and what the lab did with it. The same lines in the report and the
 * docs. A leaf: it imports only the report's types.
 */
import type { ExperimentBlock, ExperimentConditions } from './report-model';

/** The three columns: the article's figure, the lab under the article's conditions, the lab today. */
export const COLUMN_ARTICLE = 'Article';
export const COLUMN_ARTICLE_CONDITIONS = 'Lab, article’s conditions';
export const COLUMN_TODAY = 'Lab today';

/**
 * Why a run has no today column: it predates conditions, and ran under the lab's own conditions
 * of the time (Node's TLS 1.3, SDK v3), which its scorecard counted.
 */
export const BEFORE_CONDITIONS =
  'This run predates conditions: its figures ran under the lab’s conditions of the time (Node’s TLS 1.3, SDK v3, each step’s memory) and are shown in the article-conditions column, as its scorecard counted them; the today column stays empty until the experiment runs again';

/** One line per condition: `TLS, newest negotiated: article TLSv1.2, today TLSv1.3 (applied: ...)`. */
export function conditionLines(c: ExperimentConditions): string[] {
  const lines: string[] = [];
  for (const p of c.article.parameters) {
    const t = c.today.parameters.find((x) => x.parameter === p.parameter);
    const sources = p.sources.length > 0 ? `; sources: ${p.sources.join('; ')}` : '';
    lines.push(
      `${p.parameter}: ${c.article.label} ${p.value}, today ${t?.value ?? '–'} (${p.lab})${sources}`,
    );
  }
  return lines;
}

/** Per step: what differed (two runs) or that one run served both columns. */
export function stepConditionLines(c: ExperimentConditions): string[] {
  return c.steps.map((s) =>
    s.note
      ? `${s.name}: ${s.note}`
      : s.differences.length > 0
        ? `${s.name}: run twice, ${s.differences.join('; ')}`
        : `${s.name}: one run for both columns (nothing the lab applies differs)`,
  );
}

/** The paragraph above an experiment's table saying how to read its three columns. */
export function columnsLine(e: ExperimentBlock): string {
  if (!e.conditions) return BEFORE_CONDITIONS;
  return `${COLUMN_ARTICLE_CONDITIONS}: the lab under the article’s conditions (${e.conditions.article.year}), counted by the scorecard; ${COLUMN_TODAY}: the lab under today’s (${e.conditions.today.parameters
    .filter((p) => ['runtime', 'SDK', 'TLS, newest negotiated', 'network profile'].includes(p.parameter))
    .map((p) => p.value)
    .join(', ')})`;
}
