/**
 * Power Tuning on the local lab (`npm run tune -- --target local`): what the deployed state
 * machine does, with Power Tuning 4.4.0's rules (power-tuning-rules.ts). For each power value
 * it sets the function's memory on the lab's host (new environments at that memory, with its
 * CPU share, as Power Tuning publishes a version per value: the first invocation is a cold
 * start and its Init Duration counts),
 * invokes the function `num` times in series with the default payload, reads each REPORT
 * line, and averages; then the strategy picks. The result has Power Tuning's output shape and
 * is saved where the report reads tuning results.
 */
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { Architecture } from '../core/cost';
import { LabError } from '../core/errors';
import type { LabFunction, Target } from '../core/lab-functions';
import { type Timing, type TimingLine, timingOfBody } from '../core/timing.mjs';
import type { RunningLab } from '../local/lab';
import { runCost } from '../runs/run-cost';
import { loadLabPrices } from '../targets/registry';
import { proxyEvent, tuningPerson } from './default-payload';
import { type PowerTuningOutput, type PowerTuningStat, resultFileName } from './power-tuning-result';
import {
  DEFAULT_BALANCED_WEIGHT,
  DEFAULT_DISCARD_TOP_BOTTOM,
  powerValueStats,
  type ReportDurations,
  reportDurations,
  tuningOutput,
} from './power-tuning-rules';
import { exampleKey, possibleLabFunctions, type Strategy } from './tune-args';

/** The lab's functions run arm64, as deployed (lib/constructs/perf-function.ts). */
const ARCHITECTURE: Architecture = 'arm64';

export interface LocalTuneOptions {
  /** A function key: `dynamodb-get`, `qldb-create-keepalive-off`, ... */
  readonly function: string;
  readonly powerValues: readonly number[];
  readonly num: number;
  readonly strategy: Strategy;
  /** The price file of the full-cost line. @default core/prices/us-east-1.json */
  readonly prices?: string;
  /** @default DEFAULT_BALANCED_WEIGHT */
  readonly balancedWeight?: number;
  /** @default DEFAULT_DISCARD_TOP_BOTTOM */
  readonly discardTopBottom?: number;
  /** The event for every invocation; default: the function's own (default-payload.ts). */
  readonly payload?: unknown;
  readonly outDir: string;
  /** The local lab's network and host. */
  readonly lab?: {
    readonly profile?: string;
    readonly rttMs?: number;
    readonly rttByTarget?: Readonly<Partial<Record<Target, number>>>;
    readonly seed?: number;
    readonly nodePath?: string;
    readonly coldStartModel?: boolean;
  };
  readonly signal?: AbortSignal;
  readonly log: (line: string) => void;
}

/** The JSON file a local tuning run writes: the cloud file's fields that apply, and the lab's. */
export interface LocalTuneResultFile {
  readonly where: 'local';
  readonly function: { readonly key: string; readonly name: string };
  readonly architecture: Architecture;
  readonly profile: string;
  /** How the lab applied memory: cgroups (CPU share, ceiling) or not modeled, and why. */
  readonly memoryModel: { readonly modeled: boolean; readonly mechanism: string; readonly reason?: string };
  readonly startDate: string;
  readonly stopDate: string;
  readonly input: {
    readonly powerValues: readonly number[];
    readonly num: number;
    readonly payload: unknown;
    readonly strategy: Strategy;
    readonly balancedWeight: number;
    readonly discardTopBottom: number;
    readonly parallelInvocation: false;
    readonly includeOutputResults: true;
  };
  readonly output: PowerTuningOutput & { readonly stats: readonly PowerTuningStat[] };
}

export interface LocalTuneResult {
  readonly output: LocalTuneResultFile['output'];
  readonly file: string;
}

export class LocalTuneError extends LabError {
  constructor(message: string) {
    super(message, 'TuneError');
  }
}

/** The lab function a key names, and its create function (which writes the Person it reads). */
export function tunedFunction(key: string): { spec: LabFunction; create: LabFunction; both: boolean } {
  const specs = possibleLabFunctions();
  const spec = specs.find((s) => s.key === key);
  if (!spec)
    throw new LocalTuneError(
      `unknown function ${JSON.stringify(key)}: expected a key such as ${exampleKey('get')}`,
    );
  const createKey = spec.key.replace(new RegExp(`-${spec.operation}(?=-|$)`), '-create');
  const create = specs.find((s) => s.key === createKey) as LabFunction;
  return { spec, create, both: spec.key.includes('-keepalive-') };
}

interface Proxy {
  readonly statusCode?: unknown;
  readonly body?: unknown;
}

async function invokeOnce(
  lab: RunningLab,
  key: string,
  event: unknown,
  reports: Map<string, string>,
): Promise<{ status: number; report: ReportDurations; timing: Timing | null }> {
  const pool = lab.pools.get(key);
  if (!pool) throw new LocalTuneError(`the local lab has no function ${key}`);
  const inv = await pool.invoke(event);
  if (!inv.ok) throw new LocalTuneError(`${key} failed (${inv.reason}): ${inv.message}`);
  const line = reports.get(inv.requestId);
  const report = line === undefined ? undefined : reportDurations(line);
  if (!report) throw new LocalTuneError(`${key} left no REPORT line for request ${inv.requestId}`);
  const proxy = inv.response as Proxy | null;
  const status = Number(proxy?.statusCode);
  // The timing block carries the database units the call was billed (the full cost line).
  const timing = typeof proxy?.body === 'string' ? timingOfBody(proxy.body) : null;
  return { status, report, timing };
}

export async function runLocalTune(o: LocalTuneOptions): Promise<LocalTuneResult> {
  const { spec, create, both } = tunedFunction(o.function);
  const person = tuningPerson(spec.target);
  const payload = o.payload ?? proxyEvent(spec, person);
  const discardTopBottom = o.discardTopBottom ?? DEFAULT_DISCARD_TOP_BOTTOM;
  const balancedWeight = o.balancedWeight ?? DEFAULT_BALANCED_WEIGHT;
  const { startLab } = await import('../local/lab');
  const started = new Date();
  const stats: ReturnType<typeof powerValueStats>[] = [];
  const prices = await loadLabPrices(o.prices);
  const reports = new Map<string, string>();
  // One lab; each power value replaces the function's environments at that memory, as a
  // published version per value does: its first invocation is a cold start.
  const lab = await startLab({
    port: 0,
    ...o.lab,
    context: { targets: spec.target, keepAlive: both ? 'both' : 'on' },
    memoryMb: o.powerValues[0],
    log: (line) => {
      if (line.startsWith('warning')) o.log(line);
    },
    onFunctionLog: (_fn, line) => {
      const id = /^REPORT RequestId: (\S+)/.exec(line)?.[1];
      if (id) reports.set(id, line);
    },
  });
  const profile = lab.profile.name;
  const memoryModel = lab.memoryModel;
  o.log(
    `  memory: ${memoryModel.modeled ? `CPU share and memory ceiling by cgroups (${memoryModel.mechanism})` : `not modeled (${memoryModel.reason ?? 'no cgroups'})`}; network profile ${profile}`,
  );
  try {
    // The Person a get, overwrite or update works on; a create posts it again (409).
    if (o.payload === undefined) {
      // Set-up, not a measurement: at the largest power value, where a fresh environment's first
      // call (TLS handshake, the SDK's code compiled on first use) takes the least time. At 128 MB
      // (0.07 vCPU) it can pass the handlers' 5 s database deadline on a small machine, and a 503
      // would stop the whole tuning. Back to the first value after,
      // which replaces the seeding environment: each value's first invocation stays cold.
      await lab.setMemory(Math.max(...o.powerValues), create.key);
      const seed = await invokeOnce(lab, create.key, proxyEvent(create, person), reports);
      if (seed.status !== 201 && seed.status !== 409)
        throw new LocalTuneError(`creating the tuning Person with ${create.key} answered ${seed.status}`);
      await lab.setMemory(o.powerValues[0], create.key);
    }
    for (const value of o.powerValues) {
      if (o.signal?.aborted) throw new LocalTuneError('interrupted');
      await lab.setMemory(value, spec.key);
      const durations: ReportDurations[] = [];
      const timings: TimingLine[] = [];
      const statuses = new Map<number, number>();
      for (let i = 0; i < o.num; i++) {
        if (o.signal?.aborted) throw new LocalTuneError('interrupted');
        const { status, report, timing } = await invokeOnce(lab, spec.key, payload, reports);
        timings.push({
          at: Date.now(),
          target: spec.target,
          variant: 'on',
          phase: spec.operation,
          status,
          clientMs: null,
          govId: null,
          timing,
        });
        statuses.set(status, (statuses.get(status) ?? 0) + 1);
        durations.push(report);
      }
      // As Power Tuning, which fails only on a function error: an invocation that answered 5xx
      // ran and is timed (a cold start at 128 MB can pass the handlers' 5 s database deadline on
      // a slow machine). Said on a line of its own; a value where every one did is a failure.
      const failed = [...statuses].reduce((n, [k, c]) => (k >= 500 ? n + c : n), 0);
      if (failed === o.num)
        throw new LocalTuneError(`${spec.key} answered ${[...statuses.keys()].join(', ')} at ${value} MB`);
      if (failed > 0)
        o.log(
          `  warning: ${failed} of ${o.num} invocations at ${value} MB answered 5xx (database error or deadline); their durations are in the average, as Power Tuning counts any invocation that did not throw`,
        );
      const s = powerValueStats(value, durations, { architecture: ARCHITECTURE, discardTopBottom });
      stats.push(s);
      o.log(
        `  ${String(value).padStart(5)} MB  ${o.num} invocations (${[...statuses].map(([k, n]) => `${n}x ${k}`).join(', ')})  average ${s.averageDuration.toFixed(2)} ms  $${s.averagePrice.toPrecision(4)} each`,
      );
      // Power Tuning prices Lambda duration alone; beside it, the lab's one cost function adds the
      // request charge, the API call and the database's units at the price file's prices.
      const full = runCost(
        {
          reports: durations.map((d) => ({ billedDurationMs: d.billedDurationMs, memorySizeMb: value })),
          timings,
          architecture: ARCHITECTURE,
          api: 'rest',
        },
        prices,
      );
      if (full) {
        const m = full.perMillion;
        o.log(
          `         full cost $${m.total.toFixed(2)} per million requests: Lambda ${m.lambda.toFixed(2)}, API ${m.api.toFixed(2)}, database ${full.databaseBasis === null ? 'n/a' : `${m.database.toFixed(2)} (${full.databaseBasis})`} at ${full.prices}`,
        );
      }
    }
  } finally {
    await lab.stop();
  }
  const output = tuningOutput(stats, o.strategy, balancedWeight);
  const file: LocalTuneResultFile = {
    where: 'local',
    function: { key: spec.key, name: spec.key },
    architecture: ARCHITECTURE,
    profile,
    memoryModel: {
      modeled: memoryModel.modeled,
      mechanism: memoryModel.mechanism,
      ...(memoryModel.reason ? { reason: memoryModel.reason } : {}),
    },
    startDate: started.toISOString(),
    stopDate: new Date().toISOString(),
    input: {
      powerValues: o.powerValues,
      num: o.num,
      payload,
      strategy: o.strategy,
      balancedWeight,
      discardTopBottom,
      parallelInvocation: false,
      includeOutputResults: true,
    },
    output,
  };
  await mkdir(o.outDir, { recursive: true });
  const path = join(o.outDir, `local-${resultFileName(spec.key, started.getTime())}`);
  await writeFile(path, `${JSON.stringify(file, null, 2)}\n`);
  return { output, file: path };
}
