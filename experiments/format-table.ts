/** The experiment's rows as a plain-text table for the terminal (the notes are in the report). */
import { COLUMN_ARTICLE, COLUMN_ARTICLE_CONDITIONS, COLUMN_TODAY } from '../report/conditions-text';
import type { ExperimentRow } from '../report/report-model';

export function formatNumber(v: number | null, unit: string): string {
  if (v === null || !Number.isFinite(v)) return '–';
  if (unit === 'ms') return v >= 100 ? v.toFixed(1) : v >= 10 ? v.toFixed(2) : v.toFixed(3);
  if (Number.isInteger(v)) return String(v);
  return v >= 100 ? v.toFixed(0) : v.toFixed(2);
}

export function articleCell(r: ExperimentRow): string {
  // The article's constant as written (0.657919, 33), not rounded to our precision.
  return r.article === null ? r.articleText : `${Number(r.article.toPrecision(6))} (${r.articleText})`;
}

/** The today column: its number, or a dash (the note says why). */
export function todayCell(r: ExperimentRow): string {
  return r.today === undefined ? '–' : formatNumber(r.today, r.unit);
}

export function formatExperimentTable(rows: readonly ExperimentRow[]): string {
  const table = [
    ['Metric', 'Quantity', COLUMN_ARTICLE, COLUMN_ARTICLE_CONDITIONS, COLUMN_TODAY, 'Unit'],
    ...rows.map((r) => [
      r.metric,
      `${r.kind}, ${r.statistic}`,
      articleCell(r),
      formatNumber(r.measured, r.unit),
      todayCell(r),
      r.unit,
    ]),
  ];
  const widths = table[0].map((_, i) => Math.max(...table.map((line) => line[i].length)));
  const line = (cells: readonly string[]) =>
    cells
      .map((c, i) => (i === 3 || i === 4 ? c.padStart(widths[i]) : c.padEnd(widths[i])))
      .join('  ')
      .trimEnd();
  return [line(table[0]), line(widths.map((w) => '-'.repeat(w))), ...table.slice(1).map(line)].join('\n');
}

/** A row's note with what its today column is (the same run, its own, or none). */
export function noteWithToday(r: ExperimentRow): string {
  return r.todayNote ? `${r.note}; today: ${r.todayNote}` : r.note;
}

/** The rows as a Markdown table with their roles and notes, as the docs show them. */
export function markdownExperimentTable(rows: readonly ExperimentRow[]): string {
  const cell = (s: string) => s.replace(/\|/g, '\\|').replace(/\r?\n/g, ' ');
  return [
    `| Metric | Quantity | ${COLUMN_ARTICLE} | ${COLUMN_ARTICLE_CONDITIONS} | ${COLUMN_TODAY} | Unit | Role | Note |`,
    '|---|---|---|---:|---:|---|---|---|',
    ...rows.map(
      (r) =>
        `| ${cell(r.metric)} | ${r.kind}, ${r.statistic} | ${cell(articleCell(r))} | ${formatNumber(r.measured, r.unit)} | ${todayCell(r)} | ${r.unit} | ${r.article === null ? 'lab only' : r.role} | ${cell(noteWithToday(r))} |`,
    ),
  ].join('\n');
}

/** Any table as plain text for the terminal: its title, then left-aligned padded columns. */
export function formatPlainTable(t: {
  readonly title: string;
  readonly columns: readonly string[];
  readonly rows: readonly (readonly string[])[];
}): string {
  const all = [t.columns, ...t.rows];
  const widths = t.columns.map((_, i) => Math.max(...all.map((r) => (r[i] ?? '').length)));
  const line = (cells: readonly string[]) =>
    cells
      .map((c, i) => c.padEnd(widths[i]))
      .join('  ')
      .trimEnd();
  return [t.title, '', line(t.columns), line(widths.map((w) => '-'.repeat(w))), ...t.rows.map(line)].join(
    '\n',
  );
}
