/**
 * Runs one experiment: each step is one `runLoad` into outDir/steps/<step>/ (its summary.json,
 * timings and report), then the definition reads the steps into "Article vs this run" rows and
 * one combined report goes to outDir/report.{json,md,html}. Heavy modules load on call.
 */
import { join, relative } from 'node:path';
import type { StepSettings } from '../aws/deployed-settings';
import { withCleanup } from '../core/cleanup';
import type { Target } from '../core/lab-functions';
import type { ExperimentStepReport } from '../report/experiment-report';
import type { ExperimentBlock, ExperimentStep } from '../report/report-model';
import {
  applied,
  articleConditions,
  conditionNotes,
  conditionsRecord,
  differences,
  TODAY,
} from './conditions';
import { missingTargets, withTodayColumn } from './rows';
import { sampleHostLoad, scoreRows } from './scorecard';
import type {
  ColdStartView,
  DirectRedisView,
  ExperimentDefinition,
  PlanContext,
  StepPlan,
  StepView,
  TuningView,
} from './types';

export interface RunExperimentOptions {
  readonly definition: ExperimentDefinition;
  readonly outDir: string;
  /** Shorter phases and lower parallelism: every local experiment in well under 3 minutes. @default false */
  readonly quick?: boolean;
  /** The local lab, or the deployed stack. @default 'local' */
  readonly where?: 'local' | 'aws';
  /** The targets to run, among those the lab has. @default every target (TARGETS) */
  readonly targets?: readonly Target[];
  /** Every phase this long instead of the experiment's own. @default the experiment's */
  readonly durationS?: number;
  readonly local?: {
    readonly engine?: string;
    /** The network profile; a step may name its own (StepPlan.profile). @default the lab's */
    readonly profile?: string;
    readonly rttMs?: number;
    readonly rttByTarget?: Readonly<Partial<Record<Target, number>>>;
    readonly seed?: number;
    readonly maxEnvironments?: number;
    readonly nodePath?: string;
    /** Function memory, MB: one value runs every step at it, several compare them in each step. @default the template's */
    readonly memories?: readonly number[];
    /** Model Lambda's sandbox and runtime start in every init. @default true */
    readonly coldStartModel?: boolean;
  };
  readonly aws?: { readonly region?: string; readonly profile?: string; readonly stackPrefix?: string };
  readonly signal?: AbortSignal;
  readonly log: (line: string) => void;
  readonly logError: (line: string) => void;
}

export interface RunExperimentResult {
  /** The signal stopped the run: no rows, no report. */
  readonly interrupted: boolean;
  readonly block: ExperimentBlock | null;
  readonly reportHtml?: string;
  /** 0, or 1 when a phase failed or a request got an error (the report is written either way) */
  readonly exitCode: number;
}

export function runExperiment(o: RunExperimentOptions): Promise<RunExperimentResult> {
  return withCleanup((cleanup) => {
    // Sampled through the whole run: the scorecard says when the host had more work than cores.
    const load = sampleHostLoad();
    cleanup.add(() => load.stop());
    return runWithLoad(o, load);
  });
}

async function runWithLoad(
  o: RunExperimentOptions,
  load: ReturnType<typeof sampleHostLoad>,
): Promise<RunExperimentResult> {
  const { TARGETS } = await import('../core/lab-functions');
  const where = o.where ?? 'local';
  // The lab options the side steps (cold starts, tuning) run with: the load steps' network model.
  const sideLab = {
    profile: o.local?.profile,
    rttMs: o.local?.rttMs,
    rttByTarget: o.local?.rttByTarget,
    seed: o.local?.seed,
    nodePath: o.local?.nodePath,
    coldStartModel: o.local?.coldStartModel,
  };
  const ctx: PlanContext = {
    quick: o.quick ?? false,
    where,
    targets: o.targets ?? TARGETS,
    durationS: o.durationS,
  };
  const d = o.definition;
  const plan = d.plan(ctx);
  const { runLoad } = await import('../loadtest/run-load');
  const { buildFromResultsDir } = await import('../report/build-report');
  const { readStepView } = await import('./step-results');
  if (where === 'aws') {
    const mismatch = await checkDeployed(o.aws, plan);
    if (mismatch.length > 0) {
      for (const line of mismatch) o.logError(line);
      return { interrupted: false, block: null, exitCode: 2 };
    }
  }
  const started = Date.now();
  const views = new Map<string, StepView>();
  const reports: ExperimentStepReport[] = [];
  const steps: ExperimentStep[] = [];
  const warnings: string[] = [];
  let exitCode = 0;
  // Each load step runs under the article's conditions, and again under today's where they
  // differ (experiments/conditions.ts); a step whose conditions match runs once for both columns.
  const articleC = articleConditions(d.article);
  const todayViews = new Map<string, StepView>();
  const stepConditions: { name: string; differences: string[]; note?: string }[] = [];
  // Lines for the conditions' notes, and the targets with no today run.
  const conditionSteps: string[] = [];
  const notToday = new Set<string>();
  for (const [i, step] of plan.entries()) {
    if (step.targets.length === 0) {
      warnings.push(`step ${step.name} did not run: none of its targets is among those chosen`);
      continue;
    }
    const underArticle = applied(articleC, step.memoryMb);
    const underToday = applied(TODAY, step.memoryMb);
    // The deployed stack runs what was deployed: today's conditions, once.
    const differ = where === 'local' && !step.todayOnly ? differences(underArticle, underToday) : [];
    stepConditions.push({
      name: step.name,
      differences: differ,
      ...(step.todayOnly ? { note: `today’s conditions only: ${step.todayOnly}` } : {}),
    });
    const todayTargets = step.targets.filter((t) => !step.notToday?.targets.includes(t));
    if (differ.length > 0 && step.notToday && todayTargets.length < step.targets.length)
      conditionSteps.push(
        `${step.name}: ${step.notToday.targets.join(', ')} under the article’s conditions only, ${step.notToday.reason}`,
      );
    for (const t of step.targets) if (!todayTargets.includes(t) && differ.length > 0) notToday.add(t);
    const runs =
      differ.length === 0
        ? [
            {
              which: 'both' as const,
              settings: step.todayOnly ? underToday : underArticle,
              name: step.name,
              targets: step.targets,
            },
          ]
        : [
            { which: 'article' as const, settings: underArticle, name: step.name, targets: step.targets },
            ...(todayTargets.length > 0
              ? [
                  {
                    which: 'today' as const,
                    settings: underToday,
                    name: `${step.name}-today`,
                    targets: todayTargets,
                  },
                ]
              : []),
          ];
    for (const r of runs) {
      const dir = join(o.outDir, 'steps', r.name);
      const under =
        r.which === 'both'
          ? step.todayOnly
            ? 'today’s conditions only'
            : where === 'local'
              ? 'the article’s conditions and today’s (nothing the lab applies differs)'
              : 'the deployed stack'
          : r.which === 'article'
            ? `the article’s conditions (${articleC.year}: ${differ.join('; ')})`
            : 'today’s conditions';
      o.log(`\n=== ${d.name} step ${i + 1}/${plan.length}: ${r.name}: ${step.description}; under ${under}`);
      const t0 = Date.now();
      const run = await runLoad({
        outDir: dir,
        targets: r.targets,
        variants: step.variants,
        operations: step.operations,
        durationS: step.durationS,
        ratePerS: step.ratePerS ?? 10,
        parallel: step.parallel,
        bursts: step.bursts,
        ...(step.targetsAtOnce ? { targetsAtOnce: true } : {}),
        idleGapS: step.idleGapS,
        warmupS: step.warmupS,
        seedRecords: step.seedRecords,
        where,
        local: {
          ...o.local,
          ...(step.profile ? { profile: step.profile } : {}),
          // The conditions' memory unless --memory chose sizes; a deployed stack has the memory it was deployed with.
          memories:
            o.local?.memories && o.local.memories.length > 0
              ? o.local.memories
              : where === 'local' && r.settings.memoryMb !== undefined
                ? [r.settings.memoryMb]
                : undefined,
          maxEnvironments: o.local?.maxEnvironments ?? step.maxEnvironments,
          idleTimeoutS: step.idleTimeoutS,
          reclaimIdleS: step.reclaimIdleS,
          seedStories: step.seedStories,
          tlsMaxVersion: r.settings.tlsMaxVersion,
          ...(r.settings.initRuntime
            ? { coldStartAs: { runtime: r.settings.initRuntime, architecture: 'x86_64' as const } }
            : {}),
          context: step.context,
        },
        aws: o.aws,
        signal: o.signal,
        log: (line) => o.log(line),
        logError: (line) => o.logError(line),
      });
      const wallS = (Date.now() - t0) / 1000;
      if (run.interrupted) return { interrupted: true, block: null, exitCode: 130 };
      if (run.failed.length > 0 || run.rows.some((x) => x.errors > 0)) exitCode = 1;
      for (const f of run.failed)
        warnings.push(`step ${r.name}: phase ${f.target} ${f.phase} failed: ${f.reason}`);
      let report: ExperimentStepReport['report'] | undefined;
      try {
        report = await buildFromResultsDir(dir);
        reports.push({ name: r.name, report });
      } catch (e) {
        // Its rows say they have no measurement; the other steps still report.
        warnings.push(`step ${r.name} has no report: ${e instanceof Error ? e.message : String(e)}`);
      }
      const view = readStepView(step, dir, run.rows, wallS, report);
      if (r.which !== 'today') views.set(step.name, view);
      if (r.which !== 'article') todayViews.set(step.name, view);
      steps.push({
        name: r.name,
        description: step.description,
        dir: relative(o.outDir, dir),
        wallS,
        conditions: r.which,
      });
    }
  }
  const coldStartViews = new Map<string, ColdStartView>();
  for (const c of d.coldStarts?.(ctx) ?? []) {
    if (!ctx.targets.includes(c.function.split('-')[0] as Target)) {
      warnings.push(`${c.name} did not run: its target is not among those chosen`);
      continue;
    }
    if (where === 'aws') {
      warnings.push(
        `${c.name} did not run: the unbundled build runs on the local lab only (npm run experiment -- ${d.name})`,
      );
      continue;
    }
    if (o.signal?.aborted) return { interrupted: true, block: null, exitCode: 130 };
    const dir = join(o.outDir, 'steps', c.name);
    o.log(`\n=== ${d.name} ${c.name}: ${c.description}`);
    const t0 = Date.now();
    const { runColdStartCompare } = await import('./cold-start-compare');
    try {
      const view = await runColdStartCompare({
        plan: c,
        outDir: dir,
        lab: sideLab,
        signal: o.signal,
        log: (line) => o.log(line),
      });
      const wallS = (Date.now() - t0) / 1000;
      coldStartViews.set(c.name, { ...view, wallS });
      steps.push({
        name: c.name,
        description: c.description,
        dir: relative(o.outDir, dir),
        wallS,
        kind: 'cold-starts',
      });
    } catch (e) {
      if (o.signal?.aborted) return { interrupted: true, block: null, exitCode: 130 };
      exitCode = 1;
      warnings.push(`${c.name} failed: ${e instanceof Error ? e.message : String(e)}`);
    }
  }
  const tuningViews = new Map<string, TuningView>();
  const tuningDirs: string[] = [];
  for (const t of d.tunings?.(ctx) ?? []) {
    if (!ctx.targets.includes(t.function.split('-')[0] as Target)) {
      warnings.push(`tuning ${t.name} did not run: its target is not among those chosen`);
      continue;
    }
    if (where === 'aws') {
      // The deployed stack has the real state machine: npm run tune runs it.
      warnings.push(
        `tuning ${t.name} did not run: on the deployed stack run npm run tune -- --function ${t.function} --power-values ${t.powerValues.join(',')} --strategy ${t.strategy}`,
      );
      continue;
    }
    if (o.signal?.aborted) return { interrupted: true, block: null, exitCode: 130 };
    const dir = join(o.outDir, 'steps', t.name);
    o.log(`\n=== ${d.name} tuning ${t.name}: ${t.description}`);
    const t0 = Date.now();
    const { runLocalTune } = await import('../tune/local-tune');
    try {
      const { output } = await runLocalTune({
        function: t.function,
        powerValues: t.powerValues,
        num: t.num,
        strategy: t.strategy,
        outDir: dir,
        lab: sideLab,
        signal: o.signal,
        log: (line) => o.log(line),
      });
      const wallS = (Date.now() - t0) / 1000;
      tuningViews.set(t.name, { plan: t, wallS, ...output });
      tuningDirs.push(dir);
      steps.push({
        name: t.name,
        description: t.description,
        dir: relative(o.outDir, dir),
        wallS,
        kind: 'tuning',
      });
    } catch (e) {
      if (o.signal?.aborted) return { interrupted: true, block: null, exitCode: 130 };
      exitCode = 1;
      warnings.push(`tuning ${t.name} failed: ${e instanceof Error ? e.message : String(e)}`);
    }
  }
  const directViews = new Map<string, DirectRedisView>();
  for (const plan of d.directs?.(ctx) ?? []) {
    if (!ctx.targets.includes('redis')) {
      warnings.push(`${plan.name} did not run: redis is not among the targets chosen`);
      continue;
    }
    if (where === 'aws') {
      warnings.push(
        `${plan.name} did not run: the direct client reaches the local lab's Redis only (run it beside your cache for the cloud's)`,
      );
      continue;
    }
    if (o.signal?.aborted) return { interrupted: true, block: null, exitCode: 130 };
    o.log(`\n=== ${d.name} ${plan.name}: ${plan.description}`);
    const t0 = Date.now();
    const { runDirectRedis } = await import('./direct-redis');
    try {
      const view = await runDirectRedis({ plan, lab: sideLab, signal: o.signal, log: (line) => o.log(line) });
      const wallS = (Date.now() - t0) / 1000;
      directViews.set(plan.name, { ...view, wallS });
      const failed = view.results.filter((r) => r.errors > 0);
      if (failed.length > 0) {
        exitCode = 1;
        for (const r of failed)
          warnings.push(`${plan.name}: ${r.op} at ${r.level} connections got ${r.errors} errors`);
      }
      const dir = join(o.outDir, 'steps', plan.name);
      const { mkdir, writeFile } = await import('node:fs/promises');
      await mkdir(dir, { recursive: true });
      await writeFile(join(dir, 'direct.json'), `${JSON.stringify({ ...view, wallS }, null, 2)}\n`);
      steps.push({
        name: plan.name,
        description: plan.description,
        dir: relative(o.outDir, dir),
        wallS,
        kind: 'direct',
      });
    } catch (e) {
      if (o.signal?.aborted) return { interrupted: true, block: null, exitCode: 130 };
      exitCode = 1;
      warnings.push(`${plan.name} failed: ${e instanceof Error ? e.message : String(e)}`);
    }
  }
  const outcome = d.rows(views, ctx, tuningViews, coldStartViews, directViews);
  const anyDiffer = stepConditions.some((c) => c.differences.length > 0);
  // The same definition reads today's runs: its rows line up with the article's one for one.
  const todayCtx = { ...ctx, targets: ctx.targets.filter((t) => !notToday.has(t)) };
  const todayRows = anyDiffer
    ? d.rows(todayViews, todayCtx, tuningViews, coldStartViews, directViews).rows
    : outcome.rows;
  const rows = withTodayColumn(outcome.rows, todayRows, anyDiffer);
  const sideRuns = steps.filter((s) => s.kind !== undefined).map((s) => s.name);
  const block: ExperimentBlock = {
    name: d.name,
    article: d.article,
    title: d.title,
    where,
    quick: ctx.quick,
    wallS: (Date.now() - started) / 1000,
    missingTargets: missingTargets(d.articleTargets, TARGETS),
    steps,
    rows,
    tables: outcome.tables ?? [],
    // Counted against the article's conditions: the column the article's figure was measured under.
    scorecard: scoreRows(rows, load.stop(), outcome.notReproduced),
    conditions: {
      article: conditionsRecord(articleC),
      today: conditionsRecord(TODAY),
      steps: stepConditions,
      notes: [...conditionSteps, ...conditionNotes(articleC, where, sideRuns)],
    },
  };
  const { writeExperimentReport } = await import('../report/experiment-report');
  const { readTuning } = await import('../report/build-report');
  const tuning = await readTuning(tuningDirs, warnings);
  const { files } = await writeExperimentReport(o.outDir, block, reports, warnings, tuning);
  for (const w of warnings) o.logError(w);
  return { interrupted: false, block, reportHtml: files.html, exitCode };
}

/** What a step needs of the deployed functions: its memory and the context flags it would synthesize with. */
function stepSettings(step: StepPlan): StepSettings {
  const pc = step.context?.provisionedConcurrency;
  const prewarm = step.context?.prewarmConnection;
  return {
    ...(step.memoryMb === undefined ? {} : { memoryMb: step.memoryMb }),
    ...(pc === undefined ? {} : { provisionedConcurrency: Number(pc) }),
    ...(prewarm === undefined ? {} : { prewarmConnection: prewarm === 'true' }),
  };
}

/**
 * --target aws: every step's functions, keep-alive variant, settings and index against the
 * deployed stack (aws/deployed-settings.ts). Lines to print and stop on (what differs, then what
 * to deploy), or [] when the stack runs them all.
 */
export async function checkDeployed(
  aws: RunExperimentOptions['aws'],
  plan: readonly StepPlan[],
): Promise<string[]> {
  const { CloudFormationClient } = await import('@aws-sdk/client-cloudformation');
  const { LambdaClient } = await import('@aws-sdk/client-lambda');
  const { resolveAwsOptions, sdkClientConfig } = await import('../aws/aws-options');
  const { readLabOutputs } = await import('../aws/stack-outputs');
  const { deployedStepMismatches } = await import('../aws/deployed-settings');
  const resolved = resolveAwsOptions({
    region: aws?.region,
    profile: aws?.profile,
    'stack-prefix': aws?.stackPrefix,
  });
  const config = sdkClientConfig(resolved);
  const outputs = await readLabOutputs(new CloudFormationClient(config), resolved.stackPrefix);
  const out = await deployedStepMismatches(
    { lambda: new LambdaClient(config), clientConfig: config },
    outputs,
    plan.map((step) => ({
      name: step.name,
      targets: step.targets,
      variants: step.variants,
      operations: step.operations,
      settings: stepSettings(step),
    })),
  );
  if (out.length > 0)
    out.push(
      'Nothing was measured: deploy what the steps need and run again. Steps that need different settings (provisioned-idle with and without prewarming) cannot share one deployment: run those on the local lab.',
    );
  return out;
}
