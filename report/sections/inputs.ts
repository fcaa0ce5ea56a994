/** What came with the input: Logs Insights, Power Tuning, malformed lines, an experiment's rows. */

import {
  COLUMN_ARTICLE,
  COLUMN_ARTICLE_CONDITIONS,
  COLUMN_TODAY,
  columnsLine,
  conditionLines,
  stepConditionLines,
} from '../conditions-text';
import type { Block, Plot, Section } from '../page';
import { tuningPlotId } from '../plot-style';
import type { ExperimentRow, LabReport } from '../report-model';
import { hostLoadLine, scorecardLine } from '../scorecard-text';
import { DASH, insightsCell, ms, usd } from './format';

export function insights(report: LabReport): Section | null {
  if (!report.insights) return null;
  const table = (rows: readonly Readonly<Record<string, string>>[]): Block => {
    const keys = [...new Set(rows.flatMap((r) => Object.keys(r)))];
    return {
      kind: 'table',
      columns: keys.map((k) => ({ title: k, numeric: k !== 'function' && k !== 'coldStart' })),
      rows: rows.map((r) => keys.map((k) => insightsCell(r[k]))),
    };
  };
  const { stats, coldWarm } = report.insights;
  return {
    id: 'insights',
    title: 'CloudWatch Logs Insights',
    blocks: [
      { kind: 'text', text: 'The article’s query, computed by Logs Insights over the same window:' },
      { kind: 'code', text: stats.query },
      stats.rows.length > 0 ? table(stats.rows) : { kind: 'text', text: 'No rows.' },
      { kind: 'text', text: 'Cold (with Init Duration) and warm invocations:' },
      { kind: 'code', text: coldWarm.query },
      coldWarm.rows.length > 0 ? table(coldWarm.rows) : { kind: 'text', text: 'No rows.' },
    ],
  };
}

export function tuning(report: LabReport, plots: readonly Plot[]): Section | null {
  if (report.tuning.length === 0) return null;
  const blocks: Block[] = [];
  report.tuning.forEach((t, i) => {
    blocks.push({ kind: 'heading', text: `${t.function}: ${t.powerMb} MB chosen` });
    blocks.push({
      kind: 'text',
      text:
        `Best memory ${t.powerMb} MB${t.strategy ? ` (strategy ${t.strategy})` : ''}: average duration ${ms(t.durationMs)} ms, ` +
        `average cost ${usd(t.costUsd)} per invocation. ` +
        (t.where === 'local'
          ? `Tuned on the local lab (network profile ${t.profile ?? DASH}), by Power Tuning's rules; its invocations would cost ${usd(t.lambdaCostUsd)} in Lambda. `
          : `This tuning run cost ${usd(t.executionCostUsd)} Step Functions + ${usd(t.lambdaCostUsd)} Lambda. `) +
        `File: ${t.file}${t.executionArn ? `; execution ${t.executionArn}` : ''}.`,
    });
    if (t.visualization)
      blocks.push({ kind: 'link', label: 'Power Tuning visualization', href: t.visualization });
    if (t.memory.length > 0) {
      blocks.push({
        kind: 'table',
        columns: [
          { title: 'Memory (MB)', numeric: true },
          { title: 'Avg duration (ms)', numeric: true },
          { title: 'Avg cost per invocation', numeric: true },
          { title: 'Total cost', numeric: true },
          { title: '' },
        ],
        rows: t.memory.map((m) => [
          String(m.memoryMb),
          ms(m.avgDurationMs),
          usd(m.avgCostUsd),
          usd(m.totalCostUsd),
          m.memoryMb === t.powerMb ? 'chosen' : '',
        ]),
      });
    }
    const plot = plots.find((p) => p.id === tuningPlotId(t.function, i));
    if (plot) blocks.push({ kind: 'plot', plot });
  });
  return { id: 'tuning', title: 'Power Tuning', blocks };
}

export function malformed(report: LabReport): Section {
  const m = report.malformed;
  if (m.count === 0) {
    return {
      id: 'malformed',
      title: 'Malformed lines',
      blocks: [{ kind: 'text', text: 'None: every line was read.' }],
    };
  }
  return {
    id: 'malformed',
    title: 'Malformed lines',
    blocks: [
      { kind: 'notice', text: `${m.count} line(s) skipped. The first ${m.examples.length}:` },
      {
        kind: 'table',
        columns: [
          { title: 'File' },
          { title: 'Line', numeric: true },
          { title: 'Why', wrap: true },
          { title: 'Text', wrap: true },
        ],
        rows: m.examples.map((e) => [e.file, String(e.line), e.reason, e.text]),
      },
    ],
  };
}

/** A measured or article number: its unit decides the precision. */
function figure(v: number | null, unit: string): string {
  if (v === null || !Number.isFinite(v)) return DASH;
  if (unit === 'ms') return ms(v);
  return Number.isInteger(v) ? String(v) : v.toFixed(v >= 100 ? 0 : 2);
}

const experimentCells = (r: ExperimentRow) => [
  r.metric,
  `${r.kind}, ${r.statistic}`,
  // The article's constant as written (0.657919, 33), not rounded to our precision.
  r.article === null ? r.articleText : `${Number(r.article.toPrecision(6))} (${r.articleText})`,
  figure(r.measured, r.unit),
  // A run from before conditions has no today column (the text above the table says why).
  r.today === undefined ? DASH : figure(r.today, r.unit),
  r.unit,
  r.article === null ? 'lab only' : r.role,
  r.todayNote ? `${r.note}; today: ${r.todayNote}` : r.note,
];

/** `npm run experiment`: the article's figures beside this run's, before anything else. */
export function experiment(report: LabReport): Section | null {
  const e = report.experiment;
  if (!e) return null;
  const blocks: Block[] = [
    {
      kind: 'text',
      text: `Experiment ${e.name}: ${e.title}. Source article: ${e.article}. Run ${e.where === 'local' ? 'on the local lab' : 'against the deployed stack'}${e.quick ? ' with --quick (shorter phases, lower parallelism: see the notes)' : ''}, ${e.wallS.toFixed(0)} s wall time.`,
    },
    ...e.missingTargets.map(
      (m): Block => ({ kind: 'notice', text: `${m.target}: ${m.reason}; its rows have no measured number.` }),
    ),
    { kind: 'text', text: `${columnsLine(e)}.` },
    {
      kind: 'table',
      columns: [
        { title: 'Metric', wrap: true },
        { title: 'Quantity' },
        { title: COLUMN_ARTICLE },
        { title: COLUMN_ARTICLE_CONDITIONS, numeric: true },
        { title: COLUMN_TODAY, numeric: true },
        { title: 'Unit' },
        { title: 'Role' },
        { title: 'Why they agree or differ', wrap: true },
      ],
      rows: e.rows.map(experimentCells),
    },
    ...(e.conditions
      ? ([
          { kind: 'heading', text: 'Conditions: the article’s and today’s' },
          ...[
            ...stepConditionLines(e.conditions),
            ...conditionLines(e.conditions),
            ...e.conditions.notes,
          ].map((text): Block => ({ kind: 'text', text: `${text}.` })),
        ] as Block[])
      : []),
    { kind: 'heading', text: 'Scorecard' },
    {
      kind: 'text',
      text: `${scorecardLine(e.scorecard)} (counted against the ${COLUMN_ARTICLE_CONDITIONS} column).`,
    },
    e.scorecard.hostLoad?.exceeded
      ? { kind: 'notice', text: hostLoadLine(e.scorecard.hostLoad) }
      : { kind: 'text', text: `${hostLoadLine(e.scorecard.hostLoad)}.` },
  ];
  for (const n of e.scorecard.notReproduced)
    blocks.push({ kind: 'text', text: `Not reproduced: ${n.figure}: ${n.reason}.` });
  if (e.scorecard.outside.length > 0)
    blocks.push({
      kind: 'table',
      columns: [
        { title: 'Prediction outside the band', wrap: true },
        { title: 'Article', numeric: true },
        { title: COLUMN_ARTICLE_CONDITIONS, numeric: true },
        { title: 'Ratio', numeric: true },
        { title: 'Cause', wrap: true },
      ],
      rows: e.scorecard.outside.map((m) => [
        m.metric,
        String(Number(m.article.toPrecision(6))),
        m.measured === null ? DASH : String(Number(m.measured.toPrecision(4))),
        m.ratio === null ? DASH : `${m.ratio.toFixed(2)}x`,
        m.cause,
      ]),
    });
  for (const t of e.tables) {
    blocks.push({ kind: 'heading', text: t.title });
    blocks.push({
      kind: 'table',
      // A column of numbers (or dashes) is right-aligned.
      columns: t.columns.map((title, i) => ({
        title,
        numeric: t.rows.every((r) => r[i] === DASH || /^-?\d+(\.\d+)?$/.test(r[i] ?? '')),
      })),
      rows: t.rows,
    });
  }
  blocks.push({ kind: 'heading', text: 'Steps' });
  for (const s of e.steps) {
    // A tuning run has its result file and no report of its own: its curve is in this one.
    blocks.push(
      s.kind === 'tuning'
        ? {
            kind: 'text',
            text: `${s.name} (${s.wallS.toFixed(0)} s): ${s.description}; result in ${s.dir}/, its curve under Power Tuning below.`,
          }
        : s.kind === 'direct'
          ? {
              kind: 'text',
              text: `${s.name} (${s.wallS.toFixed(0)} s): ${s.description}; direct.json in ${s.dir}/.`,
            }
          : s.kind === 'cold-starts'
            ? {
                kind: 'text',
                text: `${s.name} (${s.wallS.toFixed(0)} s): ${s.description}; cold-starts.json, both zips and the REPORT lines in ${s.dir}/.`,
              }
            : {
                kind: 'link',
                label: `${s.name} (${s.wallS.toFixed(0)} s): ${s.description}`,
                href: `${s.dir}/report.html`,
              },
    );
  }
  return { id: 'experiment', title: 'Article vs this run', blocks };
}
