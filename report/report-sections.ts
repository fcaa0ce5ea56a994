/**
 * The report as a list of sections of text, tables and plot slots: one description that
 * render-html.ts and render-markdown.ts both print, so the two say the same thing.
 */

import { isTarget, TARGET_INFO } from '../core/lab-functions';
import { TARGET_REFERENCE } from './article-figures';
import { comparisonSection } from './comparison-section';
import { cdfPlotId, type Plot, type PlotSection, TARGET_PLOT_ID, tuningPlotId } from './plots';
import {
  type ColdStarts,
  type DurationSummary,
  type ExperimentRow,
  type GroupCost,
  type GroupReport,
  type InitSummary,
  LAYER_TITLES,
  type LabReport,
  type LayerStats,
  type P50P99,
  type RequestCount,
  type TargetComparison,
  type TargetRow,
} from './report-model';

export interface Column {
  readonly title: string;
  /** right-aligned */
  readonly numeric?: boolean;
  /** long free text: may wrap */
  readonly wrap?: boolean;
}

export type Block =
  | { readonly kind: 'heading'; readonly text: string }
  | { readonly kind: 'text'; readonly text: string }
  /** a line the reader must not miss: malformed input, warnings */
  | { readonly kind: 'notice'; readonly text: string }
  | { readonly kind: 'link'; readonly label: string; readonly href: string }
  | { readonly kind: 'code'; readonly text: string }
  | {
      readonly kind: 'table';
      readonly columns: readonly Column[];
      readonly rows: readonly (readonly string[])[];
    }
  | { readonly kind: 'plot'; readonly plot: Plot };

export interface Section {
  readonly id: string;
  readonly title: string;
  readonly blocks: readonly Block[];
}

export const REPORT_TITLE = 'Serverless database latency report';

// ---------------------------------------------------------------- formatting

const DASH = '–';

/** Milliseconds with three significant decimals at low values, fewer where they are noise. */
export function ms(v: number | null | undefined): string {
  if (v === null || v === undefined || !Number.isFinite(v)) return DASH;
  if (v >= 100) return v.toFixed(1);
  if (v >= 10) return v.toFixed(2);
  return v.toFixed(3);
}

/** $ per million requests: cents below $10, fewer digits above. */
export function usdPerMillion(v: number | null | undefined): string {
  if (v === null || v === undefined || !Number.isFinite(v)) return DASH;
  return v >= 100 ? v.toFixed(0) : v >= 10 ? v.toFixed(1) : v.toFixed(2);
}

/** The database's $ per million: 'unpriced' for an unverified price, 'n/a' where no units were recorded. */
function dbCostCell(c: GroupCost): string {
  if (c.databaseBasis === null) return 'n/a';
  const cell = usdPerMillion(c.database);
  return c.unpriced.length > 0 ? `${cell} + unpriced` : `${cell} (${c.databaseBasis})`;
}

const costCells = (c: GroupCost | null | undefined): string[] =>
  c
    ? [usdPerMillion(c.total), usdPerMillion(c.lambda), usdPerMillion(c.api), dbCostCell(c)]
    : [DASH, DASH, DASH, DASH];

const COST_COLUMNS = [
  { title: '$ / M requests', numeric: true },
  { title: 'Lambda $/M', numeric: true },
  { title: 'API $/M', numeric: true },
  { title: 'Database $/M' },
] as const;

const int = (v: number | null | undefined) => (v === null || v === undefined ? DASH : String(v));
const ratio = (v: number) => `${v.toFixed(2)}x`;
const percent = (v: number) => `${(v * 100).toFixed(1)} %`;
const rate = (v: number | null) => (v === null ? DASH : v.toFixed(2));

export function usd(v: number | null | undefined): string {
  if (v === null || v === undefined) return DASH;
  if (v === 0) return '$0';
  return v >= 0.01 ? `$${v.toFixed(4)}` : `$${v.toPrecision(4)}`;
}

/** Insights returns numbers as strings; show them rounded, leave names alone. */
const insightsCell = (v: string | undefined) =>
  v === undefined ? DASH : /^-?\d+(\.\d+)?(e[-+]?\d+)?$/i.test(v) ? ms(Number(v)) : v;

/** Requests or commands per database call, `p50 / max`. */
const requests = (r: RequestCount | null) => (r ? `${r.p50} / ${r.max}` : DASH);

const layerOf = (g: GroupReport, layer: LayerStats['layer']) =>
  g.layers.find((l) => l.layer === layer)?.ladder;

// ---------------------------------------------------------------- sections

/** `off`, or `off, 128 MB` when the run compared memory sizes. */
const variantCell = (g: GroupReport): string =>
  g.memoryMb === null ? g.keepAlive : `${g.keepAlive}, ${g.memoryMb} MB`;

const MEMORY_KEYS = new Set(['memoryModel', 'memory', 'functions']);

/**
 * What the run modeled of Lambda's memory setting, from summary.json: the lab's own line, the
 * memory sizes each function ran at, and a notice that qualifies every figure when the CPU
 * share and memory ceiling were not applied.
 */
function memoryBlocks(lab: Readonly<Record<string, unknown>>): Block[] {
  const blocks: Block[] = [];
  const memory = lab.memory as { modeled?: unknown } | undefined;
  if (typeof lab.memoryModel === 'string') {
    blocks.push(
      memory?.modeled === false
        ? { kind: 'notice', text: `${lab.memoryModel} (memory not modeled)` }
        : { kind: 'text', text: `${lab.memoryModel}.` },
    );
  }
  const functions = lab.functions;
  if (functions && typeof functions === 'object') {
    const sizes = new Set<string>();
    for (const f of Object.values(functions as Record<string, { memoryMb?: unknown }>)) {
      if (Array.isArray(f?.memoryMb)) sizes.add(f.memoryMb.join(', '));
    }
    if (sizes.size > 0)
      blocks.push({ kind: 'text', text: `Function memory (MB): ${[...sizes].join('; ')}.` });
  }
  return blocks;
}

/**
 * The run header's network line: the profile and, per target, its round trip and service
 * time, from summary.json's `lab` block. Null for a run that recorded none (cloud, older runs).
 */
export function networkLine(lab: Readonly<Record<string, unknown>>): string | null {
  if (typeof lab.profile !== 'string') return null;
  const network = typeof lab.network === 'object' && lab.network !== null ? lab.network : {};
  const links = Object.entries(network as Record<string, unknown>).map(([target, v]) => {
    const link = (typeof v === 'object' && v !== null ? v : {}) as {
      rttMs?: unknown;
      serviceTime?: { p50Ms?: unknown; p99Ms?: unknown } | null;
    };
    const label = isTarget(target) ? TARGET_INFO[target].label : target;
    const st = link.serviceTime;
    const service = st
      ? `service time p50 ${String(st.p50Ms)} / p99 ${String(st.p99Ms)} ms (seeded log-normal)`
      : "service time the local engine's own";
    return `${label} round trip ${String(link.rttMs)} ms, ${service}`;
  });
  const seed = typeof lab.seed === 'number' ? ` (seed ${lab.seed})` : '';
  return `Network profile ${lab.profile}${seed}${links.length > 0 ? `: ${links.join('; ')}` : ''}.`;
}

function overview(report: LabReport): Section {
  const blocks: Block[] = [
    // A target's notice (QLDB is emulated) qualifies every figure below, so it comes first.
    ...report.notices.map((text): Block => ({ kind: 'notice', text })),
    { kind: 'text', text: `Input: ${report.input}.` },
    { kind: 'text', text: `Generated ${report.generatedAt}. Files: ${report.files.join(', ') || DASH}.` },
  ];
  if (report.lab) {
    // Memory has lines of its own below; the per-function list would drown the settings.
    const settings = Object.entries(report.lab)
      .filter(([k]) => !MEMORY_KEYS.has(k) && k !== 'network')
      .map(([k, v]) => `${k} ${typeof v === 'string' ? v : JSON.stringify(v)}`)
      .join(', ');
    blocks.push({ kind: 'text', text: `Lab: ${settings}.` });
    const network = networkLine(report.lab);
    if (network) blocks.push({ kind: 'text', text: network });
    blocks.push(...memoryBlocks(report.lab));
  }
  const m = report.malformed;
  blocks.push(
    m.count > 0
      ? {
          kind: 'notice',
          text: `Malformed lines: ${m.count} input line(s) could not be read and were skipped (${Object.entries(
            m.byReason,
          )
            .map(([r, n]) => `${n} ${r}`)
            .join('; ')}); see "Malformed lines" below.`,
        }
      : { kind: 'text', text: 'Malformed lines: 0.' },
  );
  for (const w of report.warnings) blocks.push({ kind: 'notice', text: `Note: ${w}.` });
  if (report.groups.length > 0) {
    blocks.push({
      kind: 'table',
      columns: [
        { title: 'Run' },
        { title: 'Requests', numeric: true },
        { title: 'Errors', numeric: true },
        { title: 'Throughput (/s)', numeric: true },
        { title: 'Client p50 (ms)', numeric: true },
        { title: 'Client p99 (ms)', numeric: true },
        { title: 'Function p50 (ms)', numeric: true },
        { title: 'Function p99 (ms)', numeric: true },
        { title: 'DB p50 (ms)', numeric: true },
        { title: 'DB p99 (ms)', numeric: true },
        { title: 'DB requests/call p50', numeric: true },
        { title: 'DB requests/call max', numeric: true },
        { title: 'Cold starts', numeric: true },
        { title: 'New connections', numeric: true },
      ],
      rows: report.groups.map((g) => [
        g.label,
        int(g.requests),
        int(g.errors),
        rate(g.throughputPerSec),
        ms(layerOf(g, 'client')?.p50),
        ms(layerOf(g, 'client')?.p99),
        ms(layerOf(g, 'function')?.p50),
        ms(layerOf(g, 'function')?.p99),
        ms(layerOf(g, 'database')?.p50),
        ms(layerOf(g, 'database')?.p99),
        int(g.dbRequests?.p50),
        int(g.dbRequests?.max),
        String(
          g.coldStarts.handlerColdStarts ?? g.coldStarts.onDemandColdStarts + g.coldStarts.provisionedInits,
        ),
        g.connections ? percent(g.connections.newConnectionShare) : DASH,
      ]),
    });
  }
  return { id: 'overview', title: 'Overview', blocks };
}

function ladders(report: LabReport, plots: readonly Plot[]): Section | null {
  if (report.groups.length === 0) return null;
  const blocks: Block[] = [
    {
      kind: 'text',
      text:
        'Percentiles from HDR histograms (1 µs resolution, 3 significant digits). Client: Artillery’s time to first ' +
        'byte per request; function: the Duration on Lambda’s REPORT lines; database: the handler’s own dbMs.',
    },
  ];
  const pairs = [...new Set(report.groups.map((g) => `${g.target}\u0000${g.phase}`))];
  for (const pair of pairs) {
    const [target, phase] = pair.split('\u0000');
    const members = report.groups.filter((g) => g.target === target && g.phase === phase);
    blocks.push({ kind: 'heading', text: `${target} ${phase}` });
    blocks.push({
      kind: 'table',
      columns: [
        { title: 'Keep-alive' },
        { title: 'Layer' },
        { title: 'Count', numeric: true },
        { title: 'p50', numeric: true },
        { title: 'p75', numeric: true },
        { title: 'p90', numeric: true },
        { title: 'p95', numeric: true },
        { title: 'p99', numeric: true },
        { title: 'p99.9', numeric: true },
        { title: 'max (ms)', numeric: true },
        { title: 'DB requests/call (p50 / max)', numeric: true },
        { title: 'Source' },
      ],
      rows: members.flatMap((g) =>
        g.layers.map((l) => [
          variantCell(g),
          LAYER_TITLES[l.layer],
          String(l.ladder.count),
          ms(l.ladder.p50),
          ms(l.ladder.p75),
          ms(l.ladder.p90),
          ms(l.ladder.p95),
          ms(l.ladder.p99),
          ms(l.ladder['p99.9']),
          ms(l.ladder.max),
          // Beside the database layer: how many round trips that time was spent on.
          l.layer === 'database' ? requests(g.dbRequests) : '',
          l.source,
        ]),
      ),
    });
    // Beside the ladders: how much load they were measured under (the histogram article's unit).
    const through = members.filter((g) => g.throughputPerMinute !== null);
    if (through.length > 0) {
      blocks.push({
        kind: 'text',
        text: `Throughput: ${through.map((g) => `keep-alive ${variantCell(g)} ${perMinute(g)}`).join('; ')}.`,
      });
    }
    const plot = plots.find((p) => p.id === cdfPlotId(target, phase));
    if (plot) blocks.push({ kind: 'plot', plot });
  }
  return { id: 'ladders', title: 'Percentile ladders', blocks };
}

/** `612 requests/min (closed loop of 10 workers)` */
function perMinute(g: GroupReport): string {
  const load = g.load;
  const how =
    load?.mode === 'closed'
      ? ` (closed loop of ${load.parallel ?? '?'} workers)`
      : load?.ratePerS != null
        ? ` (open loop at ${load.ratePerS}/s)`
        : '';
  return `${(g.throughputPerMinute ?? 0).toFixed(0)} requests/min${how}`;
}

/** The phases that followed an idle gap: did warm environments' connections survive it? */
function afterGap(report: LabReport): Section | null {
  const groups = report.groups.filter((g) => g.afterGap);
  if (groups.length === 0) return null;
  return {
    id: 'after-gap',
    title: 'After the idle gap',
    blocks: [
      {
        kind: 'text',
        text:
          'Each phase after the first ran as a short warm-up, then a gap with no traffic, then the phase. Calls from ' +
          'environments warm before the gap (not cold starts) that opened a connection are environments whose kept ' +
          'connection did not survive the gap (the server closed it idle); their database time against reused ' +
          'connections is what that cost. With keep-alive off every call opens one.',
      },
      {
        kind: 'table',
        columns: [
          { title: 'Run' },
          { title: 'Gap (s)', numeric: true },
          { title: 'Warm calls', numeric: true },
          { title: 'Opened a connection', numeric: true },
          { title: 'New p50 (ms)', numeric: true },
          { title: 'Reused p50 (ms)', numeric: true },
          { title: 'Cost p50 (ms)', numeric: true },
        ],
        rows: groups.map((g) => {
          const a = g.afterGap;
          const cost =
            a?.newConnectionDbMsP50 != null && a.reusedDbMsP50 != null
              ? a.newConnectionDbMsP50 - a.reusedDbMsP50
              : null;
          return [
            g.label,
            String(a?.gapS ?? DASH),
            String(a?.warmCalls ?? DASH),
            String(a?.firstCallsNewConnection ?? DASH),
            ms(a?.newConnectionDbMsP50),
            ms(a?.reusedDbMsP50),
            ms(cost),
          ];
        }),
      },
    ],
  };
}

const pair = (v: P50P99 | null) => [ms(v?.p50), ms(v?.p99)];

/** TARGET_INFO's label, or the key of a target the lab does not know. */
const labelOf = (t: string) => (isTarget(t) ? TARGET_INFO[t].label : t);

/** `QLDB 3.1x DynamoDB`; the baseline target's row says so. */
function ratioCell(r: TargetRow, c: TargetComparison): string {
  if (r.target === c.baseline) return 'baseline';
  return r.dbRatioToBaseline === null
    ? DASH
    : `${r.label} ${r.dbRatioToBaseline.toFixed(1)}x ${labelOf(c.baseline)}`;
}

function targets(report: LabReport, plots: readonly Plot[]): Section | null {
  if (report.targetComparison.length === 0) return null;
  const blocks: Block[] = [
    {
      kind: 'text',
      text:
        'The targets side by side, per phase and keep-alive variant: p50 and p99 in ms at each layer, the requests or ' +
        'protocol commands one database call sent (p50), and the database p50 as a multiple of the baseline ' +
        'target’s (DynamoDB’s, the articles’ reference, or where it did not run the first target that did). ' +
        `For reference, ${TARGET_REFERENCE.source}.`,
    },
  ];
  const withCost = report.targetComparison.some((c) => c.rows.some((r) => r.cost));
  for (const c of report.targetComparison) {
    blocks.push({
      kind: 'heading',
      text: `${c.phase}, keep-alive ${c.keepAlive}${c.memoryMb === undefined ? '' : `, ${c.memoryMb} MB`}`,
    });
    blocks.push({
      kind: 'table',
      columns: [
        { title: 'Target' },
        { title: 'Client p50 (ms)', numeric: true },
        { title: 'Client p99', numeric: true },
        { title: 'Function p50 (ms)', numeric: true },
        { title: 'Function p99', numeric: true },
        { title: 'DB p50 (ms)', numeric: true },
        { title: 'DB p99', numeric: true },
        { title: 'DB requests/call p50', numeric: true },
        { title: `DB p50 vs ${labelOf(c.baseline)}` },
        // Cost columns where the run recorded costs (summaries before it did have none).
        ...(withCost ? COST_COLUMNS : []),
        { title: 'Article' },
      ],
      rows: c.rows.map((r) => [
        r.label,
        ...pair(r.clientMs),
        ...pair(r.functionMs),
        ...pair(r.dbMs),
        int(r.dbRequestsP50),
        ratioCell(r, c),
        ...(withCost ? costCells(r.cost) : []),
        r.article ?? DASH,
      ]),
    });
  }
  const plot = plots.find((p) => p.id === TARGET_PLOT_ID);
  if (plot) blocks.push({ kind: 'plot', plot });
  return { id: 'targets', title: 'Target comparison', blocks };
}

/** Every phase's latency beside its cost, and the latency-versus-cost chart (runs/run-cost.ts). */
function cost(report: LabReport, plots: readonly Plot[]): Section | null {
  const priced = report.groups.filter((g) => g.cost);
  if (priced.length === 0) return null;
  const files = [...new Set(priced.map((g) => g.cost?.prices))].join('; ');
  const client = (g: GroupReport) => g.layers.find((l) => l.layer === 'client')?.ladder;
  return {
    id: 'cost',
    title: 'Cost beside latency',
    blocks: [
      {
        kind: 'text',
        text:
          `Dollars per million requests at ${files}: Lambda is the request charge plus GB-seconds of each REPORT ` +
          "line's Billed Duration (init included, as Lambda bills it since 2025-08-01) on arm64; API is one REST API " +
          'call per request; database is what each response recorded: DynamoDB capacity units (measured where the ' +
          'engine returned them, computed by DynamoDB’s item-size rules where not), QLDB read and write I/Os (measured: ' +
          'the session results’ ConsumedIOs), Redis commands (measured), DSQL ' +
          'DPUs (modeled from the documented per-transaction formulas). Free tiers, storage and fixed plans are not ' +
          'in these figures; the price file lists them on lines of their own.',
      },
      {
        kind: 'table',
        columns: [
          { title: 'Run' },
          { title: 'Client p50 (ms)', numeric: true },
          { title: 'Client p99', numeric: true },
          ...COST_COLUMNS,
        ],
        rows: priced.map((g) => [g.label, ms(client(g)?.p50), ms(client(g)?.p99), ...costCells(g.cost)]),
      },
      ...provisionedIdleBlocks(priced),
      ...plotsOf(plots, 'cost'),
    ],
  };
}

/** Provisioned concurrency is billed per hour while configured, so it is a line of its own. */
function provisionedIdleBlocks(groups: readonly GroupReport[]): Block[] {
  const lines = groups.flatMap((g) => {
    const p = g.cost?.provisionedIdle;
    if (!p) return [];
    const price =
      p.usdPerHour === null
        ? `unpriced (${p.reason ?? 'no verified price'})`
        : `$${p.usdPerHour.toFixed(4)} per hour`;
    return [`${g.label}: provisioned concurrency ${p.concurrency}, ${price}`];
  });
  if (lines.length === 0) return [];
  return [
    {
      kind: 'text',
      text:
        'Provisioned concurrency is billed while configured, requests or not, so it is not in the $ per million above: ' +
        `${lines.join('; ')}.`,
    },
  ];
}

function plotsOf(plots: readonly Plot[], section: PlotSection): Block[] {
  return plots.filter((p) => p.section === section).map((plot) => ({ kind: 'plot', plot }));
}

function keepAlive(report: LabReport, plots: readonly Plot[]): Section | null {
  if (report.groups.length === 0) return null;
  const ref = report.keepAliveReference;
  const blocks: Block[] = [
    {
      kind: 'text',
      text: `Reference: ${ref.source} (${ref.ratio}x). Ratios are keep-alive off divided by keep-alive on.`,
    },
  ];
  if (report.keepAlive.length === 0) {
    blocks.push({ kind: 'text', text: 'This input has one keep-alive variant per run: nothing to compare.' });
    return { id: 'keep-alive', title: 'Keep-alive comparison', blocks };
  }
  blocks.push({
    kind: 'table',
    columns: [
      { title: 'Run' },
      { title: 'Layer' },
      { title: 'p50 off (ms)', numeric: true },
      { title: 'p50 on (ms)', numeric: true },
      { title: 'off/on p50', numeric: true },
      { title: 'p99 off (ms)', numeric: true },
      { title: 'p99 on (ms)', numeric: true },
      { title: 'off/on p99', numeric: true },
      { title: 'Articles', numeric: true },
    ],
    rows: report.keepAlive.flatMap((c) =>
      c.layers.map((l) => [
        `${c.target} ${c.phase}`,
        LAYER_TITLES[l.layer],
        ms(l.offP50),
        ms(l.onP50),
        ratio(l.ratioP50),
        ms(l.offP99),
        ms(l.onP99),
        ratio(l.ratioP99),
        `${ref.offMs} -> ${ref.onMs} ms (${ref.ratio}x)`,
      ]),
    ),
  });
  blocks.push(...plotsOf(plots, 'keep-alive'));
  return { id: 'keep-alive', title: 'Keep-alive comparison', blocks };
}

const summaryCells = (d: DurationSummary | null) => [ms(d?.p50), ms(d?.p95), ms(d?.max)];
const initCells = (i: InitSummary) => [ms(i.p50), ms(i.p95), ms(i.max)];

function handlerColdStarts(c: ColdStarts): string {
  if (c.handlerColdStarts === null) return DASH;
  const by = Object.entries(c.coldStartsByInitType).map(([t, n]) => `${n} ${t}`);
  return by.length > 0 ? `${c.handlerColdStarts} (${by.join(', ')})` : String(c.handlerColdStarts);
}

function coldStarts(report: LabReport, plots: readonly Plot[]): Section | null {
  const withHandler = report.groups.filter((g) => g.coldStarts.handlerColdStarts !== null);
  if (report.functions.length === 0 && withHandler.length === 0) return null;
  const blocks: Block[] = [
    {
      kind: 'text',
      text:
        'From the REPORT lines, as lumigo-cli’s analyze-lambda-cold-starts shows them: an on-demand cold start is a ' +
        'REPORT line with an Init Duration; a provisioned-concurrency environment is initialised ahead of traffic and ' +
        'leaves an INIT_REPORT line instead. Init statistics cover both.',
    },
  ];
  if (report.functions.length > 0) {
    blocks.push({
      kind: 'table',
      columns: [
        { title: 'Function' },
        { title: 'Invocations', numeric: true },
        { title: 'On-demand cold starts', numeric: true },
        { title: 'Provisioned inits', numeric: true },
        { title: 'Failed inits', numeric: true },
        { title: 'Init p50 (ms)', numeric: true },
        { title: 'Init p95', numeric: true },
        { title: 'Init max', numeric: true },
        { title: 'Cold Duration p50', numeric: true },
        { title: 'Cold p95', numeric: true },
        { title: 'Cold max', numeric: true },
        { title: 'Warm Duration p50', numeric: true },
        { title: 'Warm p95', numeric: true },
        { title: 'Warm max', numeric: true },
      ],
      rows: report.functions.map((f) => [
        f.name,
        String(f.duration.count),
        String(f.cold?.count ?? 0),
        String(f.provisionedInits),
        String(f.failedInits),
        ...initCells(f.init),
        ...summaryCells(f.cold),
        ...summaryCells(f.warm),
      ]),
    });
  }
  if (withHandler.length > 0) {
    blocks.push({ kind: 'heading', text: 'As the handlers saw them' });
    blocks.push({
      kind: 'table',
      columns: [
        { title: 'Run' },
        { title: 'Calls with timing', numeric: true },
        { title: 'First invocations of an environment (by init type)', numeric: true },
        { title: 'REPORT cold starts', numeric: true },
        { title: 'INIT_REPORT inits', numeric: true },
      ],
      rows: withHandler.map((g) => [
        g.label,
        String(g.connections?.calls ?? DASH),
        handlerColdStarts(g.coldStarts),
        String(g.coldStarts.onDemandColdStarts),
        String(g.coldStarts.provisionedInits),
      ]),
    });
  }
  blocks.push(...plotsOf(plots, 'cold-starts'));
  return { id: 'cold-starts', title: 'Cold starts', blocks };
}

function connections(report: LabReport, plots: readonly Plot[]): Section | null {
  const groups = report.groups.filter((g) => g.connections);
  if (groups.length === 0) return null;
  return {
    id: 'connections',
    title: 'Connection reuse',
    blocks: [
      {
        kind: 'text',
        text:
          'Database time (handler dbMs) split by whether the call opened a new TCP+TLS connection (counted on the ' +
          'SDK’s HTTP agent) or reused a kept-alive one.',
      },
      {
        kind: 'table',
        columns: [
          { title: 'Run' },
          { title: 'Calls', numeric: true },
          { title: 'New connections', numeric: true },
          { title: 'Share', numeric: true },
          { title: 'New p50 (ms)', numeric: true },
          { title: 'New p99', numeric: true },
          { title: 'Reused p50 (ms)', numeric: true },
          { title: 'Reused p99', numeric: true },
          { title: 'New/reused p50', numeric: true },
        ],
        rows: groups.map((g) => {
          const c = g.connections;
          const n = c?.newConnection?.ladder;
          const r = c?.reused?.ladder;
          return [
            g.label,
            String(c?.calls ?? 0),
            String(c?.newConnections ?? 0),
            c ? percent(c.newConnectionShare) : DASH,
            ms(n?.p50),
            ms(n?.p99),
            ms(r?.p50),
            ms(r?.p99),
            n && r && r.p50 > 0 ? ratio(n.p50 / r.p50) : DASH,
          ];
        }),
      },
      ...plotsOf(plots, 'connections'),
    ],
  };
}

function overTime(report: LabReport, plots: readonly Plot[]): Section | null {
  const groups = report.groups.filter((g) => g.timeline.length > 0);
  if (groups.length === 0) return null;
  return {
    id: 'over-time',
    title: 'Over time',
    blocks: [
      ...plotsOf(plots, 'over-time'),
      {
        kind: 'table',
        columns: [
          { title: 'Run' },
          { title: 'Period start (s)', numeric: true },
          { title: 'Requests', numeric: true },
          { title: 'Responses', numeric: true },
          { title: 'Errors', numeric: true },
          { title: 'Throughput (/s)', numeric: true },
        ],
        rows: groups.flatMap((g) =>
          g.timeline.map((p) => [
            g.label,
            p.offsetS.toFixed(0),
            String(p.requests),
            String(p.responses),
            String(p.errors),
            rate(p.throughputPerSec),
          ]),
        ),
      },
    ],
  };
}

function functions(report: LabReport, plots: readonly Plot[]): Section | null {
  if (report.functions.length === 0) return null;
  return {
    id: 'functions',
    title: 'Functions (REPORT lines)',
    blocks: [
      {
        kind: 'text',
        text:
          'One row per function, or per group of log streams when the lines name no function. Durations in ms; ' +
          'percentiles from HDR histograms, count, avg, min and max exact.',
      },
      {
        kind: 'table',
        columns: [
          { title: 'Function' },
          { title: 'Invocations', numeric: true },
          { title: 'avg', numeric: true },
          { title: 'min', numeric: true },
          { title: 'p50', numeric: true },
          { title: 'p95', numeric: true },
          { title: 'p99', numeric: true },
          { title: 'max (ms)', numeric: true },
          { title: 'Billed avg (ms)', numeric: true },
          { title: 'Memory (MB)', numeric: true },
          { title: 'Max memory used (MB)', numeric: true },
          { title: 'Inits', numeric: true },
          { title: 'Init p50', numeric: true },
          { title: 'Init p95', numeric: true },
          { title: 'Init max', numeric: true },
        ],
        rows: report.functions.map((f) => [
          f.name,
          String(f.duration.count),
          ms(f.duration.avg),
          ms(f.duration.min),
          ms(f.duration.p50),
          ms(f.duration.p95),
          ms(f.duration.p99),
          ms(f.duration.max),
          ms(f.billedDuration.avg),
          int(f.memorySizeMb),
          String(f.maxMemoryUsedMb.max),
          String(f.init.count),
          ...initCells(f.init),
        ]),
      },
      ...plotsOf(plots, 'functions'),
    ],
  };
}

function insights(report: LabReport): Section | null {
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

function tuning(report: LabReport, plots: readonly Plot[]): Section | null {
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

function malformed(report: LabReport): Section {
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
  r.unit,
  r.note,
];

/** `npm run experiment`: the article's figures beside this run's, before anything else. */
function experiment(report: LabReport): Section | null {
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
    {
      kind: 'table',
      columns: [
        { title: 'Metric', wrap: true },
        { title: 'Quantity' },
        { title: 'Article' },
        { title: 'This run', numeric: true },
        { title: 'Unit' },
        { title: 'Why they agree or differ', wrap: true },
      ],
      rows: e.rows.map(experimentCells),
    },
  ];
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
        : {
            kind: 'link',
            label: `${s.name} (${s.wallS.toFixed(0)} s): ${s.description}`,
            href: `${s.dir}/report.html`,
          },
    );
  }
  return { id: 'experiment', title: 'Article vs this run', blocks };
}

export function reportSections(report: LabReport, plots: readonly Plot[]): Section[] {
  return [
    experiment(report),
    // A load run's report opens with its answer: the targets x keep-alive comparison.
    comparisonSection(report, plots),
    overview(report),
    targets(report, plots),
    cost(report, plots),
    ladders(report, plots),
    keepAlive(report, plots),
    coldStarts(report, plots),
    connections(report, plots),
    afterGap(report),
    overTime(report, plots),
    functions(report, plots),
    insights(report),
    tuning(report, plots),
    malformed(report),
  ].filter((s): s is Section => s !== null);
}
