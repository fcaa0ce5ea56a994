/** The run's own sections: its overview, the percentile ladders, the phases after an idle gap. */

import type { Block, Plot, Section } from '../page';
import { cdfPlotId } from '../plot-style';
import { type GroupReport, LAYER_TITLES, type LabReport } from '../report-model';
import {
  DASH,
  int,
  layerOf,
  MEMORY_KEYS,
  memoryBlocks,
  ms,
  networkLine,
  percent,
  rate,
  requests,
  variantCell,
} from './format';

export function overview(report: LabReport): Section {
  const blocks: Block[] = [
    // A target's notice (QLDB is emulated) qualifies every figure below, so it comes first.
    ...report.notices.map((text): Block => ({ kind: 'notice', text })),
    { kind: 'text', text: `Input: ${report.input}.` },
    { kind: 'text', text: `Generated ${report.generatedAt}. Files: ${report.files.join(', ') || DASH}.` },
  ];
  if (report.lab) {
    // Memory has lines of its own below; the per-function list would drown the settings.
    const settings = Object.entries(report.lab)
      .filter(([k]) => !MEMORY_KEYS.has(k) && k !== 'network' && k !== 'coldStart' && k !== 'coldStartModel')
      .map(([k, v]) => `${k} ${typeof v === 'string' ? v : JSON.stringify(v)}`)
      .join(', ');
    blocks.push({ kind: 'text', text: `Lab: ${settings}.` });
    const network = networkLine(report.lab);
    if (network) blocks.push({ kind: 'text', text: network });
    blocks.push(...memoryBlocks(report.lab));
    // What Init Duration holds beyond the local process (local/host/cold-start-model.ts); its sources are in report.json.
    const coldStart = report.lab.coldStartModel;
    if (typeof coldStart === 'string') {
      const off = (report.lab.coldStart as { modeled?: unknown } | undefined)?.modeled === false;
      blocks.push(off ? { kind: 'notice', text: coldStart } : { kind: 'text', text: `${coldStart}.` });
    }
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

export function ladders(report: LabReport, plots: readonly Plot[]): Section | null {
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
export function perMinute(g: GroupReport): string {
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
export function afterGap(report: LabReport): Section | null {
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
