/**
 * docs/experiments.md from committed results: every experiment's rows, roles, scorecard and
 * tables, as its report.json holds them (scripts/experiment-docs.ts writes the page). Nothing
 * here is typed by hand, so the page says what the committed runs measured.
 */
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { PROJECT_ROOT } from '../core/paths';
import { type ModelParameter, modelParameters } from '../local/network/model-parameters';
import {
  COLUMN_ARTICLE_CONDITIONS,
  columnsLine,
  conditionLines,
  stepConditionLines,
} from '../report/conditions-text';
import type { ExperimentBlock, LabReport } from '../report/report-model';
import { hostLoadLine, scorecardLine } from '../report/scorecard-text';
import { markdownExperimentTable } from './format-table';
import { EXPERIMENTS } from './registry';
import { combineScorecards } from './scorecard';
import { formatDuration } from './types';

/** Where the committed runs live, relative to the repository. */
export const DOCS_RESULTS_DIR = 'docs/results';
export const DOCS_PAGE = 'docs/experiments.md';

export interface CommittedRun {
  /** report.json's path, relative to the repository */
  readonly path: string;
  readonly generatedAt: string;
  readonly block: ExperimentBlock;
  /** What produced the figures: each load step's engine, network profile and memory model. */
  readonly conditions?: readonly string[];
}

/** `step: engine dynalite, profile in-region, Memory is CPU: cgroup-v1 ...`, from report.json's lab block. */
function conditionsOf(lab: Readonly<Record<string, unknown>> | null): string[] {
  const out: string[] = [];
  for (const [key, value] of Object.entries(lab ?? {})) {
    if (!key.startsWith('step ') || !value || typeof value !== 'object') continue;
    const v = value as Record<string, unknown>;
    const parts = [
      v.engine ? `engine ${v.engine}` : '',
      v.profile ? `network profile ${v.profile}` : '',
      typeof v.tlsMaxVersion === 'string' ? `TLS at most ${v.tlsMaxVersion.replace(/^TLSv/, '')}` : '',
      typeof v.memoryModel === 'string' ? v.memoryModel : 'memory not modeled',
    ].filter(Boolean);
    out.push(`${key.slice(5)}: ${parts.join('; ')}`);
  }
  return out;
}

/** The committed runs, in the experiments' order; an experiment without one is left out. */
export function readCommittedRuns(root = PROJECT_ROOT): CommittedRun[] {
  const runs: CommittedRun[] = [];
  for (const e of EXPERIMENTS) {
    const path = join(DOCS_RESULTS_DIR, e.name, 'report.json');
    if (!existsSync(join(root, path))) continue;
    const report = JSON.parse(readFileSync(join(root, path), 'utf8')) as LabReport;
    if (!report.experiment?.scorecard)
      throw new Error(`${path} has no experiment scorecard: rerun the experiment on this code`);
    runs.push({
      path,
      generatedAt: report.generatedAt,
      block: report.experiment,
      conditions: conditionsOf(report.lab),
    });
  }
  return runs;
}

const cell = (s: string) => s.replace(/\|/g, '\\|').replace(/\r?\n/g, ' ');

function table(columns: readonly string[], rows: readonly (readonly string[])[]): string {
  return [
    `| ${columns.map(cell).join(' | ')} |`,
    `|${columns.map(() => '---').join('|')}|`,
    ...rows.map((r) => `| ${r.map(cell).join(' | ')} |`),
  ].join('\n');
}

function section(run: CommittedRun): string {
  const e = run.block;
  const c = e.scorecard;
  const command = `npm run experiment -- ${e.name}${e.quick ? ' --quick' : ''}`;
  const parts = [
    `## \`${e.name}\`: ${e.title}`,
    `Source article: \`${e.article}\`. Run: \`${command}\`, ${e.where === 'local' ? 'the local lab' : 'the deployed stack'}, ${run.generatedAt.slice(0, 10)}, wall time ${formatDuration(e.wallS)}${e.quick ? ' (--quick: shorter phases and lower parallelism, said in each note)' : ''}. Results: \`${run.path}\`.`,
    `**Scorecard:** ${scorecardLine(c)}.`,
    `${hostLoadLine(c.hostLoad)}.`,
    ...(run.conditions && run.conditions.length > 0
      ? [`What produced the figures, per step: ${run.conditions.join(' | ')}.`]
      : []),
    ...e.missingTargets.map((m) => `${m.target}: ${m.reason}; its rows have no measured number.`),
    ...(e.conditions
      ? [
          '**Conditions**',
          [...stepConditionLines(e.conditions), ...conditionLines(e.conditions), ...e.conditions.notes]
            .map((l) => `- ${l}`)
            .join('\n'),
        ]
      : []),
    `${columnsLine(e)}.`,
    markdownExperimentTable(e.rows),
  ];
  if (c.outside.length > 0)
    parts.push(
      '**Predictions outside the band, with their causes**',
      table(
        ['Metric', 'Article', COLUMN_ARTICLE_CONDITIONS, 'Ratio', 'Cause'],
        c.outside.map((m) => [
          m.metric,
          String(Number(m.article.toPrecision(6))),
          m.measured === null ? '–' : String(Number(m.measured.toPrecision(4))),
          m.ratio === null ? '–' : `${m.ratio.toFixed(2)}x`,
          m.cause,
        ]),
      ),
    );
  if (c.notReproduced.length > 0)
    parts.push(
      '**The article’s figures not reproduced yet**',
      table(
        ['Figure', 'Why'],
        c.notReproduced.map((n) => [n.figure, n.reason]),
      ),
    );
  for (const t of e.tables) parts.push(`**${t.title}**`, table(t.columns, t.rows));
  return parts.join('\n\n');
}

function parametersSection(parameters: readonly ModelParameter[]): string {
  const source = (p: ModelParameter) =>
    p.sources.length === 0
      ? p.fittedTo
        ? 'the seed figure only'
        : 'none cited'
      : p.sources
          .map((s) => `${s.what}${s.url ? ` (${s.url})` : s.seed ? ` (seed ${s.seed})` : ''}`)
          .join('; ');
  return [
    '## The model’s parameters and their sources',
    'Read from the network profile and the lab’s defaults (`local/network/model-parameters.ts`). A parameter fitted to a seed figure may predict another article’s figures, never that one: the rows it was fitted to are calibration.',
    table(
      ['Parameter', 'Value', 'Sources', 'Fitted to (its rows are calibration)'],
      parameters.map((p) => [p.parameter, p.value, source(p), p.fittedTo ?? 'nothing: held out']),
    ),
  ].join('\n\n');
}

/** The whole page: the combined scorecard, the model's parameters, then one section per experiment. */
export function renderExperimentDocs(
  runs: readonly CommittedRun[],
  parameters: readonly ModelParameter[] = modelParameters(),
): string {
  const combined = combineScorecards(runs.map((r) => r.block.scorecard));
  const summary = table(
    [
      'Experiment',
      'Run',
      'Wall time',
      'Figures',
      'Predictions',
      'Within ±30%',
      'Host load (mean / max, cores)',
    ],
    runs.map(({ block: e }) => [
      `\`${e.name}\``,
      e.quick ? '--quick' : 'default',
      formatDuration(e.wallS),
      String(e.scorecard.figures),
      String(e.scorecard.predictions),
      String(e.scorecard.within),
      e.scorecard.hostLoad
        ? `${e.scorecard.hostLoad.meanLoad.toFixed(1)} / ${e.scorecard.hostLoad.maxLoad.toFixed(1)}, ${e.scorecard.hostLoad.cores}${e.scorecard.hostLoad.exceeded ? ' (above the cores)' : ''}`
        : '–',
    ]),
  );
  return `${[
    '# Experiments: the committed runs',
    `Generated by \`npm run docs:experiments\` from the report.json files under \`${DOCS_RESULTS_DIR}/\`; do not edit by hand (the test tier checks that this page matches them). How to run and read an experiment: [running-experiments.md](running-experiments.md).`,
    'Each row shows three columns: the article’s figure, the lab under the article’s conditions (its year’s SDK connection behaviour, TLS version and memory: `experiments/conditions.ts`) and the lab today (nodejs24.x, SDK v3, TLS 1.3, the in-region profile). Each row has a role. A **prediction** is counted: the article’s figure against a lab whose inputs were not taken from it. **Calibration** (a lab input was derived from this very figure), **setting** (the row restates a chosen value) and **gone** (the service no longer exists) are shown and not counted. A prediction is within the band when the lab under the article’s conditions is within ±30% of the article’s figure; each one outside names its cause.',
    `**Every experiment:** ${scorecardLine(combined)}.`,
    summary,
    parametersSection(parameters),
    ...runs.map(section),
  ].join('\n\n')}\n`;
}
