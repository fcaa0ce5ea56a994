/**
 * The one report an experiment writes (`npm run experiment`): its "Article vs this run"
 * section first, then every step's groups side by side, each named by its step. The plots stay
 * in each step's own report.html (linked from the Steps list): drawing them again for every
 * step of a many-step experiment would cost more than the whole --quick run.
 */
import { mkdir, writeFile } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { KEEP_ALIVE_REFERENCE } from './article-figures';
import type { Plot } from './page';
import type { ExperimentBlock, GroupReport, LabReport, MalformedSummary, TuningReport } from './report-model';
import type { ReportFiles } from './write-report';

export interface ExperimentStepReport {
  /** the step's name, as in ExperimentBlock.steps */
  readonly name: string;
  readonly report: LabReport;
}

const MAX_MALFORMED_EXAMPLES = 5;

function mergeMalformed(parts: readonly MalformedSummary[]): MalformedSummary {
  const byReason: Record<string, number> = {};
  for (const p of parts) {
    for (const [reason, n] of Object.entries(p.byReason)) byReason[reason] = (byReason[reason] ?? 0) + n;
  }
  return {
    count: parts.reduce((s, p) => s + p.count, 0),
    byReason,
    examples: parts.flatMap((p) => p.examples).slice(0, MAX_MALFORMED_EXAMPLES),
  };
}

/** A step's group, named by its step so that two steps' `dynamodb get` stay apart. */
function stepGroup(step: string, g: GroupReport): GroupReport {
  return { ...g, id: `${step}-${g.id}`, label: `${step}: ${g.label}`, phase: `${g.phase} (${step})` };
}

/** One LabReport of an experiment's steps, with its experiment block. Pure: no files. */
export function combineExperimentReport(
  experiment: ExperimentBlock,
  steps: readonly ExperimentStepReport[],
  now: Date = new Date(),
  warnings: readonly string[] = [],
  tuning: readonly TuningReport[] = [],
): LabReport {
  const byStep = <T>(pick: (s: ExperimentStepReport) => readonly T[]) => steps.flatMap(pick);
  const stepDir = (name: string) => experiment.steps.find((s) => s.name === name)?.dir ?? name;
  return {
    schemaVersion: 1,
    generatedAt: now.toISOString(),
    mode: 'results',
    input: `experiment ${experiment.name}: ${steps.length} step(s), each in its own results folder`,
    files: byStep((s) => s.report.files.map((f) => `${stepDir(s.name)}/${f}`)),
    notices: [...new Set(byStep((s) => s.report.notices))],
    lab: {
      experiment: experiment.name,
      article: experiment.article,
      where: experiment.where,
      quick: experiment.quick,
      ...Object.fromEntries(steps.map((s) => [`step ${s.name}`, s.report.lab])),
    },
    groups: byStep((s) => s.report.groups.map((g) => stepGroup(s.name, g))),
    keepAlive: byStep((s) => s.report.keepAlive.map((k) => ({ ...k, phase: `${k.phase} (${s.name})` }))),
    keepAliveReference: KEEP_ALIVE_REFERENCE,
    targetComparison: byStep((s) =>
      s.report.targetComparison.map((t) => ({ ...t, phase: `${t.phase} (${s.name})` })),
    ),
    // Each step is a run of its own: the experiment's rows compare them, not one run's targets.
    runComparison: null,
    functions: byStep((s) => s.report.functions.map((f) => ({ ...f, name: `${s.name}/${f.name}` }))),
    insights: null,
    tuning,
    malformed: mergeMalformed(steps.map((s) => s.report.malformed)),
    warnings: [...warnings, ...byStep((s) => s.report.warnings.map((w) => `${s.name}: ${w}`))],
    experiment,
  };
}

/**
 * Writes outDir/report.{json,md,html} from the steps' reports (buildFromResultsDir of each
 * step's folder). Markdown and HTML are rendered without plots (see the file comment);
 * report.json is whole.
 */
export async function writeExperimentReport(
  outDir: string,
  experiment: ExperimentBlock,
  steps: readonly ExperimentStepReport[],
  warnings: readonly string[] = [],
  tuning: readonly TuningReport[] = [],
): Promise<{ report: LabReport; files: ReportFiles }> {
  const dir = resolve(outDir);
  const report = combineExperimentReport(experiment, steps, new Date(), warnings, tuning);
  const [{ renderHtml }, { renderMarkdown }, { reportJson }] = await Promise.all([
    import('./render-html'),
    import('./render-markdown'),
    import('./write-report'),
  ]);
  // Power Tuning's curves are few and small: drawn here, as its visualization draws them.
  const plots: Plot[] = [];
  if (tuning.length > 0) {
    const { plotSpecs, renderSvg } = await import('./plots');
    for (const s of plotSpecs(report).filter((p) => p.section === 'tuning'))
      plots.push({
        id: s.id,
        section: s.section,
        title: s.title,
        caption: s.caption,
        svg: await renderSvg(s),
      });
  }
  await mkdir(dir, { recursive: true });
  const files = {
    html: join(dir, 'report.html'),
    markdown: join(dir, 'report.md'),
    json: join(dir, 'report.json'),
  };
  await Promise.all([
    writeFile(files.html, renderHtml(report, plots)),
    writeFile(files.markdown, renderMarkdown(report, plots)),
    writeFile(files.json, reportJson(report)),
  ]);
  return { report, files };
}
