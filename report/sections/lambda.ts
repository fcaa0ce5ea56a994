/** What the functions did: keep-alive, cold starts, connection reuse, the run over time, REPORT lines. */

import type { Block, Plot, Section } from '../page';
import {
  type ColdStarts,
  type DurationSummary,
  type InitSummary,
  LAYER_TITLES,
  type LabReport,
} from '../report-model';
import { DASH, int, ms, percent, plotsOf, rate, ratio } from './format';

export function keepAlive(report: LabReport, plots: readonly Plot[]): Section | null {
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

export function coldStarts(report: LabReport, plots: readonly Plot[]): Section | null {
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

export function connections(report: LabReport, plots: readonly Plot[]): Section | null {
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

export function overTime(report: LabReport, plots: readonly Plot[]): Section | null {
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

export function functions(report: LabReport, plots: readonly Plot[]): Section | null {
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
