/**
 * `power-tuning` (qldb-vs-dynamodb-optimising.txt): the article ran AWS Lambda Power Tuning
 * with the balanced strategy on its QLDB get function and found 512 MB the best trade-off
 * between cost and speed. Here the local tuner (tune/local-tune.ts, Power Tuning 4.4.0's
 * rules) runs on the QLDB and DynamoDB get and create functions, each environment under the
 * CPU share of its memory, and the rows set the article's finding beside the lab's.
 */
import type { Target } from '../../core/lab-functions';
import { QLDB_FIGURES, SEEDS } from '../../report/article-figures';
import type { ExperimentTable } from '../../report/report-model';
import { row } from '../rows';
import type { ExperimentDefinition, ExperimentOutcome, PlanContext, TuningPlan, TuningView } from '../types';

/** The memory sizes Power Tuning users try first, up to one full vCPU. */
const POWER_VALUES = [128, 256, 512, 1024, 1769] as const;
// --quick starts at 256 MB: on a 2-core machine a fresh environment's first DynamoDB call at
// 128 MB (0.07 vCPU: TLS and the SDK's first compile) can run past the 10 s function timeout,
// which a CI run cannot afford; the full run keeps 128 MB.
const QUICK_POWER_VALUES = [256, 512, 1769] as const;
const FUNCTIONS = ['qldb-get', 'qldb-create', 'dynamodb-get', 'dynamodb-create'] as const;

/** The tuning run of one function, as this experiment runs it (qldb-vs-dynamodb runs qldb-get's too). */
export function tuningOf(fn: (typeof FUNCTIONS)[number], ctx: PlanContext): TuningPlan {
  return {
    name: `tune-${fn}`,
    description: `Power Tuning, balanced strategy, on ${fn}`,
    function: fn,
    powerValues: ctx.quick ? QUICK_POWER_VALUES : POWER_VALUES,
    num: ctx.quick ? 5 : 20,
    strategy: 'balanced',
  };
}

function tunings(ctx: PlanContext): TuningPlan[] {
  return FUNCTIONS.filter((f) => ctx.targets.includes(f.split('-')[0] as Target)).map((fn) =>
    tuningOf(fn, ctx),
  );
}

const usd = (v: number | undefined) => (v === undefined ? '–' : `$${(v * 1e6).toFixed(3)}`);

function rows(
  _steps: unknown,
  ctx: PlanContext,
  views: ReadonlyMap<string, TuningView> = new Map(),
): ExperimentOutcome {
  const where =
    ctx.where === 'local'
      ? 'local lab: each power value runs under its CPU share (cgroups) behind the network profile; the database time does not shrink with memory, the client’s CPU work does'
      : 'the deployed stack: run npm run tune, the experiment tunes locally only';
  const out = [];
  const tables: ExperimentTable[] = [];
  for (const fn of FUNCTIONS) {
    const v = views.get(`tune-${fn}`);
    const isQldbGet = fn === 'qldb-get';
    const noMeasure = ctx.targets.includes(fn.split('-')[0] as Target)
      ? ctx.where === 'aws'
        ? 'the experiment tunes on the local lab; npm run tune runs the deployed state machine'
        : undefined
      : `${fn.split('-')[0]} is not among the targets run`;
    out.push(
      row({
        metric: `${fn}: memory chosen by the balanced strategy (weight 0.5)`,
        kind: 'duration',
        statistic: 'Power Tuning balanced',
        article: isQldbGet ? QLDB_FIGURES.powerTuningBalancedMb : null,
        articleText: isQldbGet
          ? '512 MB (“works best in terms of the trade off between cost and performance”)'
          : fn.startsWith('qldb')
            ? 'the article showed the tuning of its QLDB get function only'
            : 'the article tuned its DynamoDB functions “with similar improvements”, no figure',
        measured: v?.power,
        unit: 'MB',
        why: where,
        noMeasure,
      }),
    );
    if (v) {
      const at = (mb: number) => v.stats.find((s) => s.value === mb);
      const lo = v.stats[0];
      const hi = v.stats[v.stats.length - 1];
      out.push(
        row({
          metric: `${fn}: average duration at ${lo?.value} MB / at ${hi?.value} MB`,
          kind: 'duration',
          statistic: 'trimmed mean ratio',
          article: null,
          articleText: 'the article showed the curve, no figure',
          measured:
            lo?.averageDuration && hi?.averageDuration ? lo.averageDuration / hi.averageDuration : null,
          unit: 'x',
          why: 'Power Tuning’s average: Duration plus Init Duration, 20 % trimmed at each end',
        }),
      );
      tables.push({
        title: `${fn}: Power Tuning, balanced (chosen ${v.power} MB${at(512) ? `; 512 MB averages ${at(512)?.averageDuration?.toFixed(2)} ms` : ''})`,
        columns: ['memory (MB)', 'average duration (ms)', 'average cost per million invocations', ''],
        rows: v.stats.map((s) => [
          String(s.value),
          s.averageDuration?.toFixed(2) ?? '–',
          usd(s.averagePrice),
          s.value === v.power ? 'chosen' : '',
        ]),
      });
    }
  }
  return { rows: out, tables };
}

export const powerTuning: ExperimentDefinition = {
  name: 'power-tuning',
  article: SEEDS.qldb,
  title: 'Power Tuning the QLDB and DynamoDB functions',
  summary:
    'local Power Tuning (4.4.0’s rules, balanced strategy) of the QLDB and DynamoDB get and create functions at 128-1769 MB (--quick: 256-1769), under each memory’s CPU share',
  articleTargets: ['qldb', 'dynamodb'],
  plan: () => [],
  tunings,
  rows: (steps, ctx, views) => rows(steps, ctx, views),
};
