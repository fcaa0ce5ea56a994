/**
 * `npm run experiment`: one command per source article. `--list` and `--help` answer from the
 * definitions alone; the lab, Artillery, the SDK and the renderers load only once the options
 * are checked and an experiment runs.
 */
import { join, relative, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { runCli, UsageError } from '../core/errors';
import { installInterruptHandler } from '../core/interrupt';
import { TARGETS, type Target } from '../core/lab-functions';
import { RESULTS_DIR } from '../core/paths';
import {
  coldStartOption,
  engineHelp,
  engineOption,
  intOption,
  listOption,
  memoryListOption,
  NETWORK_HELP,
  networkOptions,
  seedOption,
} from '../local/cli/options';
import { DEFAULT_MAX_ENVIRONMENTS } from '../local/lab-defaults';
import type { ExperimentBlock } from '../report/report-model';
import { loadTargetModules } from '../targets/registry';
import { loadRuns } from './conditions';
import { EXPERIMENTS, findExperiment } from './registry';
import { missingTargets } from './rows';
import {
  type ExperimentDefinition,
  estimateColdStartsS,
  estimateDirectS,
  estimateS,
  estimateTuningS,
  formatDuration,
  type PlanContext,
} from './types';

// Target modules LAB_TARGET_MODULES names join the registry before anything lists the targets.
await loadTargetModules();

const HELP = `Usage: npm run experiment -- NAME [options]
       npm run experiment -- all [options]   every experiment in turn, then the combined scorecard
       npm run experiment -- --list

Runs one source article's experiment on the lab and writes its results and one report whose
first section sets the article's figures beside this run's.

Experiments: ${EXPERIMENTS.map((e) => e.name).join(', ')} (--list says more)

  --quick               shorter phases, lower parallelism (each local experiment in about a minute)
  --target local|aws    the local lab (default) or the deployed stack
  --out DIR             where results go (default results/experiments/<name>-<timestamp>):
                        DIR/report.{json,md,html} and DIR/steps/<step>/ for each load run
  --targets LIST        only these of ${TARGETS.join(', ')} (default: all the experiment uses
                        whose engine is here; one line names each one skipped and the command
                        that adds it). A target named here whose engine is missing: exit 2
  --duration S          every phase S seconds instead of the experiment's own
  --list                each experiment: its article, targets and durations
Local lab:
${NETWORK_HELP}
${engineHelp(24)}
  --max-envs N          most execution environments per function (default: the step's, else ${DEFAULT_MAX_ENVIRONMENTS})
  --node PATH           Node executable of the environments (default: Lambda's Node 24, pinned)
  --memory LIST         function memory, MB (128-10240; default the template's, 512): one value
                        runs every step at it, a comma list runs each step's phases at each size
Deployed stack (--target aws):
  --region R --profile P --stack-prefix NAME (default LatencyLab); with --target aws,
                        --profile is the AWS CLI profile
`;

function stamp(): string {
  return new Date().toISOString().replace(/[:.]/g, '-').replace('Z', '');
}

/** The targets a plan runs, in the order they first appear. */
function planTargets(e: ExperimentDefinition, ctx: PlanContext): string[] {
  const tuned = (e.tunings?.(ctx) ?? []).map((t) => t.function.split('-')[0]);
  return [...new Set([...e.plan(ctx).flatMap((s) => s.targets), ...tuned])];
}

/** Seconds an experiment should take: its load steps (twice where the article's conditions differ from today's), its tuning runs and its cold-start comparisons. */
function estimate(e: ExperimentDefinition, ctx: PlanContext): number {
  return (
    estimateS(loadRuns(e.article, e.plan(ctx))) +
    (e.tunings ? estimateTuningS(e.tunings(ctx)) : 0) +
    (e.coldStarts ? estimateColdStartsS(e.coldStarts(ctx)) : 0) +
    (e.directs ? estimateDirectS(e.directs(ctx)) : 0)
  );
}

function listText(): string {
  const base = { where: 'local' as const, targets: TARGETS };
  const lines: string[] = [];
  for (const e of EXPERIMENTS) {
    const full = { ...base, quick: false };
    const quick = { ...base, quick: true };
    const missing = missingTargets(e.articleTargets, TARGETS)
      .map((m) => `${m.target} (missing: ${m.reason})`)
      .join(', ');
    lines.push(
      `${e.name}`,
      `  article   ${e.article}`,
      `  runs      ${e.summary}`,
      `  targets   ${planTargets(e, full).join(', ')}${missing ? `; ${missing}` : ''}`,
      `  duration  ~${formatDuration(estimate(e, full))} by default, ~${formatDuration(estimate(e, quick))} with --quick (local lab, estimated)`,
      '',
    );
  }
  return lines.join('\n');
}

runCli(
  async () => {
    const { values, positionals } = parseArgs({
      options: {
        list: { type: 'boolean' },
        quick: { type: 'boolean' },
        target: { type: 'string' },
        out: { type: 'string' },
        targets: { type: 'string' },
        duration: { type: 'string' },
        rtt: { type: 'string' },
        seed: { type: 'string' },
        'cold-start': { type: 'string' },
        engine: { type: 'string' },
        'max-envs': { type: 'string' },
        node: { type: 'string' },
        memory: { type: 'string' },
        region: { type: 'string' },
        profile: { type: 'string' },
        'stack-prefix': { type: 'string' },
        help: { type: 'boolean', short: 'h' },
      },
      allowPositionals: true,
      strict: true,
    });
    if (values.help) {
      process.stdout.write(HELP);
      return 0;
    }
    if (values.list) {
      if (positionals.length > 0) throw new UsageError('--list takes no experiment name');
      process.stdout.write(listText());
      return 0;
    }
    if (positionals.length !== 1) {
      throw new UsageError(
        `name one experiment (${EXPERIMENTS.map((e) => e.name).join(', ')}), all, or --list${positionals.length > 1 ? `; got ${positionals.join(' ')}` : ''}`,
      );
    }
    const all = positionals[0] === 'all';
    const found = findExperiment(positionals[0]);
    if (!all && !found) {
      throw new UsageError(
        `no experiment ${JSON.stringify(positionals[0])}; known: ${EXPERIMENTS.map((e) => e.name).join(', ')}, or all`,
      );
    }
    const definitions = all ? EXPERIMENTS : [found as ExperimentDefinition];
    const where = values.target ?? 'local';
    if (where !== 'local' && where !== 'aws')
      throw new UsageError(`--target must be local or aws, got ${JSON.stringify(where)}`);
    const requested =
      values.targets === undefined ? undefined : listOption('targets', values.targets, TARGETS, []);
    const durationS =
      values.duration === undefined ? undefined : intOption('duration', values.duration, 1, 3600, 1);
    const engine = engineOption(values.engine);
    const network = where === 'local' ? networkOptions(values.profile, values.rtt) : {};
    const seed = seedOption(values.seed);
    const coldStart = coldStartOption(values['cold-start']);
    // Unset: each step's own (StepPlan.maxEnvironments), else the lab's default.
    const maxEnvironments =
      values['max-envs'] === undefined
        ? undefined
        : intOption('max-envs', values['max-envs'], 1, 200, DEFAULT_MAX_ENVIRONMENTS);
    const memories = memoryListOption(values.memory);
    if (memories.length > 0 && where === 'aws')
      throw new UsageError(
        '--memory sets the local lab; a deployed stack runs the memory it was deployed with',
      );
    const outRoot = resolve(
      values.out ?? join(RESULTS_DIR, 'experiments', `${all ? 'all' : definitions[0].name}-${stamp()}`),
    );
    // After every option is checked (a bad one loads nothing heavy), before anything starts:
    // a named target's missing engine is a usage error (exit 2).
    let targets: Target[] = requested ?? [...TARGETS];
    const skipped: string[] = [];
    if (where === 'local') {
      // Checked before anything starts: a named target's missing engine is a usage error (exit 2).
      const { chooseTargets, skippedLines } = await import('../local/targets/choose-targets');
      const chosen = await chooseTargets({ requested, log: (line) => console.log(line) });
      targets = chosen.targets;
      skipped.push(...skippedLines(chosen));
    }

    // Ctrl-C, SIGTERM or SIGHUP: stop the step's Artillery and lab, then exit with the signal's
    // code (core/interrupt.ts; a second Ctrl-C quits at once, ending the lab's processes).
    const signal = installInterruptHandler();
    const quick = values.quick ?? false;
    for (const line of skipped) console.log(line);
    const { runExperiment } = await import('./run-experiment');
    const { formatExperimentTable, formatPlainTable } = await import('./format-table');
    const { combineScorecards } = await import('./scorecard');
    const { scorecardText } = await import('../report/scorecard-text');
    const { stepConditionLines } = await import('../report/conditions-text');
    const blocks: ExperimentBlock[] = [];
    let exitCode = 0;
    for (const definition of definitions) {
      // `all`: each experiment in a folder of its own under the one --out.
      const outDir = all ? join(outRoot, definition.name) : outRoot;
      console.log(
        `Experiment ${definition.name} (${definition.article})${quick ? ' --quick' : ''}, ${where === 'local' ? 'local lab' : 'deployed stack'}: ${definition.summary}`,
      );
      const run = await runExperiment({
        definition,
        outDir,
        quick,
        where,
        targets,
        durationS,
        local: { engine, ...network, ...coldStart, seed, maxEnvironments, nodePath: values.node, memories },
        aws: {
          region: values.region,
          profile: where === 'aws' ? values.profile : undefined,
          stackPrefix: values['stack-prefix'],
        },
        signal,
        log: (line) => console.log(line),
        logError: (line) => console.error(line),
      });
      if (run.interrupted || !run.block) return 130;
      blocks.push(run.block);
      console.log(
        `\nArticle vs this run (${definition.article}):\n\n${formatExperimentTable(run.block.rows)}\n${run.block.conditions ? `\n${stepConditionLines(run.block.conditions).join('\n')}\n` : ''}`,
      );
      for (const t of run.block.tables.filter((x) => x.terminal)) console.log(`\n${formatPlainTable(t)}\n`);
      for (const m of run.block.missingTargets)
        console.log(`${m.target}: ${m.reason} (rows without a measurement)`);
      console.log(scorecardText(run.block.scorecard));
      console.log(`Wall time ${formatDuration(run.block.wallS)}.`);
      const rel = relative(process.cwd(), outDir) || '.';
      console.log(
        `Results in ${rel}: report.json, report.md, report.html; each step's results in ${rel}/steps/`,
      );
      if (run.exitCode !== 0) {
        console.error('a phase failed or requests got errors: exit status 1 (see the report)');
        exitCode = 1;
      }
    }
    if (all) {
      const { writeFile } = await import('node:fs/promises');
      const combined = combineScorecards(blocks.map((b) => b.scorecard));
      const perExperiment = blocks.map((b) => ({ name: b.name, wallS: b.wallS, scorecard: b.scorecard }));
      await writeFile(
        join(outRoot, 'scorecard.json'),
        `${JSON.stringify({ combined, experiments: perExperiment }, null, 2)}\n`,
      );
      console.log('\nEvery experiment:');
      for (const b of blocks)
        console.log(`  ${b.name} (${formatDuration(b.wallS)}): ${scorecardText(b.scorecard).split('\n')[0]}`);
      console.log(`\nCombined ${scorecardText(combined)}`);
      console.log(
        `Total wall time ${formatDuration(blocks.reduce((s, b) => s + b.wallS, 0))}; scorecard.json in ${relative(process.cwd(), outRoot) || '.'}`,
      );
    }
    return exitCode;
  },
  { program: 'experiment' },
);
