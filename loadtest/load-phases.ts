/**
 * The phases of `npm run load` (each target x keep-alive variant x memory size: create, then the operations
 * that read or change what it wrote: get, overwrite, update, query) and the
 * summary.json they leave. A phase that leaves no Artillery JSON is recorded as failed with
 * its reason; the other phases keep their rows, the summary and the report are still
 * written, and the run exits non-zero.
 *
 * Load is an open loop (ratePerS arrivals per second) or a closed loop (parallel workers).
 * With idleGapS, every phase after the first is run as warm-up, gap, phase: each operation has
 * functions of its own, so a short warm-up of the phase's scenario first gives it warm
 * environments with kept connections (counted apart: warmup-timings.jsonl, artillery-*-warmup.json),
 * then idleGapS pass with no traffic, then the phase shows which connections survived the gap
 * (LabRow.afterGap).
 */
import { existsSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { type KeepAliveVariant, OPERATIONS, type Operation, servesOperation } from '../core/lab-functions';
import { afterGapFromReport, timingSummaryFromReport } from '../runs/artillery-metrics';
import {
  filterTimings,
  type LabRow,
  type LoadShape,
  readArtilleryReport,
  readTimingLines,
  summarizeAfterGap,
  summarizeRun,
  summarizeTimings,
  type TimingLine,
  toLabRow,
} from '../runs/results';
import { readSummary } from '../runs/summary-reader';
import type { FailedPhase } from '../runs/summary-schema';
import { writeLoadSummary } from '../runs/summary-writer';
import type { Workers } from './artillery-platform';
import type { RunArtilleryOptions, RunArtilleryResult } from './artillery-runner';
import { type Bursts, burstPauseS } from './bursts';
import { WARMUP_S } from './load-defaults';

export type { FailedPhase } from '../runs/summary-schema';
// summary.json is written in runs/ (the report rebuilds one from Artillery's reports too).
export { writeLoadSummary } from '../runs/summary-writer';

/** The phases a run has unless told otherwise. */
export const DEFAULT_PHASES: readonly Operation[] = ['create', 'get'];
/** Phases whose requests name a Person the create phase wrote (its GovIds are their payload). */
const READS_CREATED: ReadonlySet<Operation> = new Set(['get', 'overwrite', 'update', 'view']);

/**
 * The phases to run, in the lab's order (create first, so the others find its Persons).
 * Throws when a phase needs the create phase's GovIds and create is not among them, unless
 * Persons are seeded first (the reads then pick among those).
 */
export function orderPhases(operations: readonly Operation[], seeded = false): Operation[] {
  const chosen = OPERATIONS.filter((o) => operations.includes(o));
  const orphan = chosen.find((o) => READS_CREATED.has(o));
  if (orphan && !seeded && !chosen.includes('create')) {
    throw new Error(`the ${orphan} phase works on the Persons the create phase writes: add create`);
  }
  return chosen;
}

/** What a local lab adds to a phase's row: its memory, the CPU that gave, the functions' Duration. */
export type PhaseExtras = Pick<LabRow, 'memoryMb' | 'cpu' | 'functionMs' | 'cost' | 'dbConnections'>;

export interface LoadPhasesOptions {
  readonly outDir: string;
  readonly url: string;
  readonly basePath: (target: string, variant: string) => string;
  readonly env: Readonly<Record<string, string>>;
  readonly targets: readonly string[];
  readonly variants: readonly string[];
  /** Which operations run, each as a phase (ordered by orderPhases). @default DEFAULT_PHASES */
  readonly operations?: readonly Operation[];
  readonly durationS: number;
  /** Open loop: arrivals per second (ignored with parallel). */
  readonly ratePerS: number;
  /** Closed loop: this many workers, each sending as soon as its last request answered. @default open loop */
  readonly parallel?: number;
  /** Open loop in bursts with pauses between (artillery-runner.ts Bursts). @default one steady phase */
  readonly bursts?: Bursts;
  /**
   * Run the targets' phases at the same time, each target's in order (a light, sparse load whose
   * targets share nothing but the host): the run takes one target's time. One memory only.
   */
  readonly targetsAtOnce?: boolean;
  /** Seconds with no traffic before each phase after the first, after a warm-up of it. @default 0 */
  readonly idleGapS?: number;
  /**
   * Seed this many Persons per target x keep-alive before its phases (uncounted: seed-timings.jsonl),
   * and let get, overwrite and update pick among them uniformly at random, as the histogram
   * article did ("1000 objects inserted initially, then randomly selected objects"). @default 0:
   * those phases read what the create phase wrote
   */
  readonly seedRecords?: number;
  /** The random picks' seed (a payload file of the reads), with seedRecords. @default 1 */
  readonly pickSeed?: number;
  /** Seconds of the warm-up before a gap; 0: none. @default WARMUP_S, at most durationS */
  readonly warmupS?: number;
  /**
   * Artillery's distributed runner: the phases run on workers in the cloud, which return only
   * Artillery's report. Rows come from its custom metrics; nothing local is written or read by the
   * processor; reads work on seeded records (seedRecords > 0, seeded from this machine), since
   * the create phase's GovIds stay on the workers. @default this machine
   */
  readonly workers?: Workers;
  readonly signal?: AbortSignal;
  /** Init Duration p50 of the phase's function, from its REPORT lines (local runs). */
  readonly initMsP50?: (
    target: string,
    variant: string,
    phase: string,
    memoryMb?: number,
  ) => Promise<number | null> | number | null;
  /**
   * Function memory settings to compare, MB, as keep-alive variants are compared: every
   * target x keep-alive runs its phases at each size, after setMemory(size). @default one pass
   * at the lab's setting
   */
  readonly memories?: readonly number[];
  /** Sets every function's memory (the local lab's setMemory); needed with memories. */
  readonly setMemory?: (memoryMb: number) => Promise<void>;
  /** The row's memory, CPU and function Duration (local runs). */
  readonly phaseExtras?: (
    target: string,
    variant: string,
    phase: string,
    memoryMb: number | undefined,
    /** The phase's timing lines (the cost block reads their billed units). */
    timings: readonly TimingLine[],
  ) => Promise<PhaseExtras> | PhaseExtras;
  /** Called as a phase's counted run starts (after its seeding, warm-up and gap): the lab marks its connection counts. */
  readonly phaseStart?: (target: string, variant: string, phase: string) => Promise<void> | void;
  /** The runner; tests inject one. */
  readonly runArtillery: (opts: RunArtilleryOptions) => Promise<RunArtilleryResult>;
  readonly log: (line: string) => void;
  readonly logError: (line: string) => void;
}

export interface LoadPhasesResult {
  readonly rows: LabRow[];
  readonly failed: FailedPhase[];
  /** the signal aborted: the caller stops without a summary */
  readonly interrupted: boolean;
}

/** How often the idle gap says how long it has left. */
const GAP_PROGRESS_S = 10;

/** The load shape summary.json records, from the options. */
export function loadShapeOf(o: { readonly parallel?: number; readonly ratePerS: number }): LoadShape {
  return o.parallel === undefined
    ? { mode: 'open', parallel: null, ratePerS: o.ratePerS }
    : { mode: 'closed', parallel: o.parallel, ratePerS: null };
}

/**
 * Waits seconds with no traffic, saying every GAP_PROGRESS_S how long is left. Resolves false
 * at once when the signal aborts.
 */
export function idleGap(
  seconds: number,
  label: string,
  log: (line: string) => void,
  signal?: AbortSignal,
): Promise<boolean> {
  return new Promise((resolve) => {
    if (signal?.aborted) return resolve(false);
    const started = Date.now();
    log(`  ${label}: idle gap of ${seconds} s, no traffic`);
    const progress = setInterval(() => {
      const left = Math.max(0, seconds - (Date.now() - started) / 1000);
      log(
        `  ${label}: idle ${Math.round((Date.now() - started) / 1000)}/${seconds} s, ${Math.round(left)} s left`,
      );
    }, GAP_PROGRESS_S * 1000);
    const finish = (completed: boolean): void => {
      clearInterval(progress);
      clearTimeout(timer);
      signal?.removeEventListener('abort', onAbort);
      resolve(completed);
    };
    const onAbort = (): void => finish(false);
    const timer = setTimeout(() => finish(true), seconds * 1000);
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}

function timingsOf(file: string): TimingLine[] {
  // No response at all leaves no timings file: zero timings, not a failure.
  return existsSync(file) ? readTimingLines(file) : [];
}

/** Why a phase's output cannot be read; undefined when it can. */
function missingOutput(outJson: string, result: RunArtilleryResult): string | undefined {
  if (existsSync(outJson)) return undefined;
  const last = result.outputTail.filter((l) => l.trim() !== '').at(-1);
  return `no Artillery JSON (${outJson}); Artillery exited with ${result.exitCode}${last ? `: ${last.trim()}` : ''}`;
}

export async function runLoadPhases(o: LoadPhasesOptions): Promise<LoadPhasesResult> {
  const timingsFile = join(o.outDir, 'timings.jsonl');
  const rows: LabRow[] = [];
  const failed: FailedPhase[] = [];
  const phases = orderPhases(o.operations ?? DEFAULT_PHASES, (o.seedRecords ?? 0) > 0);
  const remote = o.workers !== undefined;
  const orphan = phases.find((p) => READS_CREATED.has(p));
  if (remote && orphan && !((o.seedRecords ?? 0) > 0))
    throw new Error(
      `the ${orphan} phase on ${o.workers?.platform} workers reads seeded records (seedRecords > 0): the create phase's GovIds stay on its workers`,
    );
  const memories: readonly (number | undefined)[] =
    o.memories && o.memories.length > 0 ? o.memories : [undefined];
  if (memories[0] !== undefined && !o.setMemory) throw new Error('memories need setMemory');
  // One memory keeps the file names of a run without the axis; several name theirs.
  const suffix = (m: number | undefined) => (memories.length > 1 && m !== undefined ? `-${m}mb` : '');
  // A target runs the phases it has functions for (core/lab-functions.ts OPERATION_TARGETS, _VARIANTS).
  const phasesOf = (target: string, variant: string) =>
    phases.filter((p) => servesOperation(target, p, variant as KeepAliveVariant));
  let total = 0;
  for (const target of o.targets) {
    for (const variant of o.variants) {
      const skipped = phases.filter((p) => !phasesOf(target, variant).includes(p));
      if (skipped.length > 0)
        o.log(
          `${target} keep-alive ${variant} has no ${skipped.join(', ')} function: those phases are not run`,
        );
      total += phasesOf(target, variant).length * memories.length;
    }
  }
  const load = loadShapeOf(o);
  const gapS = o.idleGapS ?? 0;
  const shape = load.mode === 'open' ? `at ${o.ratePerS}/s` : `closed loop of ${o.parallel}`;
  let n = 0;
  if (o.targetsAtOnce && memories.length > 1)
    throw new Error('targetsAtOnce needs one memory: the lab sets one memory for every function at a time');
  /** One target's phases, in order; false when interrupted. */
  const runTarget = async (target: string): Promise<boolean> => {
    for (const variant of o.variants) {
      for (const memoryMb of memories) {
        // At once, the one memory is set before any target starts (setting it resets environments).
        if (memoryMb !== undefined && !o.targetsAtOnce) {
          if (o.signal?.aborted) return false;
          await o.setMemory?.(memoryMb);
        }
        const govIds = join(o.outDir, `govids-${target}-keepalive-${variant}${suffix(memoryMb)}.csv`);
        const seeded = join(o.outDir, `seeded-${target}-keepalive-${variant}${suffix(memoryMb)}.csv`);
        const seeding =
          (o.seedRecords ?? 0) > 0 && phasesOf(target, variant).some((p) => READS_CREATED.has(p));
        if (seeding) {
          if (o.signal?.aborted) return false;
          await seedPersons(o, target, variant, memoryMb, seeded, suffix(memoryMb));
          if (o.signal?.aborted) return false;
        }
        for (const [index, phase] of phasesOf(target, variant).entries()) {
          n += 1;
          const label = `${target} keep-alive ${variant}${memoryMb === undefined ? '' : ` ${memoryMb} MB`} ${phase}`;
          o.log(`\n[${n}/${total}] ${label}: ${o.durationS} s ${shape}`);
          const outJson = join(
            o.outDir,
            `artillery-${target}-keepalive-${variant}-${phase}${suffix(memoryMb)}.json`,
          );
          const labels = {
            target,
            keepAlive: variant,
            phase,
            ...(memoryMb === undefined ? {} : { memoryMb }),
          };
          const afterGap = index > 0 && gapS > 0;
          const phaseBursts = !(o.bursts?.operations?.includes(phase) ?? true) ? undefined : o.bursts;
          if (phaseBursts) {
            o.log(
              `  in ${phaseBursts.activeS} s bursts with ${phaseBursts.pauseS} s pauses: ${o.durationS + burstPauseS(o.durationS, phaseBursts)} s in all`,
            );
          }
          // The warm-up before a gap is steady (no bursts): it only starts environments.
          const artillery = (
            file: string,
            timings: string,
            durationS: number,
            what: string,
            warmUp = false,
          ) => {
            const bursts = warmUp ? undefined : phaseBursts;
            // Artillery's elapsed time counts the pauses too.
            const wallS = durationS + burstPauseS(durationS, bursts);
            return o.runArtillery({
              operation: phase,
              labTarget: target,
              target: o.url,
              basePath: o.basePath(target, variant),
              durationS,
              ratePerS: o.ratePerS,
              parallel: o.parallel,
              bursts,
              outJson: file,
              // This machine's files: a cloud worker has none (its figures come back as metrics).
              env: {
                ...o.env,
                ...(remote
                  ? {}
                  : {
                      LAB_TIMINGS_FILE: timings,
                      ...(phase === 'create' ? { LAB_GOVIDS_FILE: govIds } : {}),
                    }),
              },
              variables: phaseVariables(o, variant, memoryMb),
              // Seeded: reads pick among the seeded Persons; else they read what create wrote.
              payload: READS_CREATED.has(phase) ? (seeding ? seeded : govIds) : undefined,
              ...(seeding && READS_CREATED.has(phase) ? { pickSeed: o.pickSeed ?? 1 } : {}),
              ...(o.workers ? { workers: o.workers } : {}),
              signal: o.signal,
              onProgress: (p) =>
                o.log(
                  `  ${what}: ${Math.round(p.elapsedS)}/${wallS} s  requests ${p.requests}  errors ${p.errors}`,
                ),
            });
          };
          const warmupS = Math.min(o.warmupS ?? WARMUP_S, o.durationS);
          if (afterGap && warmupS <= 0) {
            // No warm-up: the phase's environments idle from their init (provisioned ones) to the phase.
            if (o.signal?.aborted || !(await idleGap(gapS, label, o.log, o.signal))) {
              return false;
            }
          } else if (afterGap) {
            o.log(`  ${label}: warm-up of ${warmupS} s (not counted), then the gap`);
            try {
              const warm = await artillery(
                outJson.replace(/\.json$/, '-warmup.json'),
                join(o.outDir, 'warmup-timings.jsonl'),
                warmupS,
                `${label} warm-up`,
                true,
              );
              if (warm.exitCode !== 0) o.logError(`  ${label}: the warm-up exited with ${warm.exitCode}`);
            } catch (e) {
              // The phase still runs; it just finds fewer warm environments after the gap.
              o.logError(
                `  ${label}: the warm-up did not run: ${e instanceof Error ? e.message : String(e)}`,
              );
            }
            if (o.signal?.aborted || !(await idleGap(gapS, label, o.log, o.signal))) {
              return false;
            }
          }
          let result: RunArtilleryResult;
          try {
            await o.phaseStart?.(target, variant, phase);
            result = await artillery(outJson, timingsFile, o.durationS, label);
          } catch (e) {
            // Artillery could not even start (bad options, a missing scenario): this phase only.
            const reason = `Artillery did not run: ${e instanceof Error ? e.message : String(e)}`;
            failed.push({ ...labels, reason });
            o.logError(`  ${label} failed: ${reason}`);
            continue;
          }
          if (o.signal?.aborted) return false;
          if (result.exitCode !== 0) {
            o.logError(
              `Artillery exited with ${result.exitCode}:\n${result.outputTail.slice(-15).join('\n')}`,
            );
          }
          const missing = missingOutput(outJson, result);
          if (missing) {
            failed.push({ ...labels, reason: missing });
            o.logError(`  ${label} failed: ${missing}`);
            continue;
          }
          try {
            const report = readArtilleryReport(outJson);
            const run = summarizeRun(report);
            // Remote workers return Artillery's report only: the handlers' side comes from its metrics.
            const lines = remote
              ? []
              : filterTimings(timingsOf(timingsFile), { target, variant, phase, memoryMb });
            const row: LabRow = {
              ...toLabRow(
                { target, keepAlive: variant, phase },
                run,
                remote ? timingSummaryFromReport(report) : summarizeTimings(lines),
                (await o.initMsP50?.(target, variant, phase, memoryMb)) ?? null,
                load,
                afterGap
                  ? remote
                    ? afterGapFromReport(report, gapS)
                    : summarizeAfterGap(lines, gapS)
                  : undefined,
              ),
              ...(await o.phaseExtras?.(target, variant, phase, memoryMb, lines)),
            };
            rows.push(row);
            o.log(
              `  done in ${(result.wallMs / 1000).toFixed(1)} s: ${row.requests} requests, ${row.errors} errors, p50 ${row.latencyMs?.p50 ?? '-'} ms, db p50 ${row.dbMs?.p50?.toFixed(2) ?? '-'} ms${row.functionMs ? `, function p50 ${row.functionMs.p50.toFixed(2)} ms` : ''}${row.dbConnections ? `, ${row.dbConnections.peak} connection(s) open at the database at most` : ''}`,
            );
          } catch (e) {
            const reason = `results unreadable: ${e instanceof Error ? e.message : String(e)}`;
            failed.push({ ...labels, reason });
            o.logError(`  ${label} failed: ${reason}`);
          }
        }
      }
    }
    return true;
  };
  if (o.targetsAtOnce) {
    if (memories[0] !== undefined) await o.setMemory?.(memories[0]);
    // Every target settles before a failure goes up, so none still runs when the lab stops.
    const settled = await Promise.allSettled(o.targets.map(runTarget));
    const thrown = settled.find((r) => r.status === 'rejected');
    if (thrown) throw thrown.reason;
    // The targets' rows in the order asked, as a sequential run gives them.
    rows.sort((a, b) => o.targets.indexOf(a.target) - o.targets.indexOf(b.target));
    if (settled.some((r) => r.status === 'fulfilled' && !r.value)) return { rows, failed, interrupted: true };
  } else {
    for (const target of o.targets)
      if (!(await runTarget(target))) return { rows, failed, interrupted: true };
  }
  return { rows, failed, interrupted: false };
}

/**
 * The variables every worker gets: the labels the processor writes and the load's shape it
 * reports (its figures must not depend on this machine's environment).
 */
function phaseVariables(
  o: LoadPhasesOptions,
  variant: string,
  memoryMb: number | undefined,
): Record<string, string | number> {
  return {
    labKeepAlive: variant,
    ...(memoryMb === undefined ? {} : { labMemoryMb: memoryMb }),
    ...(o.parallel === undefined ? { labRatePerS: o.ratePerS } : {}),
    ...(o.env.LAB_SIGV4_REGION ? { labSigv4Region: o.env.LAB_SIGV4_REGION } : {}),
  };
}

/** Arrivals per second while seeding: a bound on the lab's queue, not a measurement. */
const SEED_RATE_PER_S = 100;

/**
 * Seeds o.seedRecords Persons on one target x keep-alive through its create function, one
 * Artillery run whose arrivals are exactly that many (uncounted: seed-timings.jsonl and
 * artillery-*-seed.json). The GovIds answered 201 go to `file`, which the reads pick from.
 */
async function seedPersons(
  o: LoadPhasesOptions,
  target: string,
  variant: string,
  memoryMb: number | undefined,
  file: string,
  suffix: string,
): Promise<void> {
  const count = o.seedRecords ?? 0;
  const durationS = Math.max(1, Math.ceil(count / SEED_RATE_PER_S));
  const label = `${target} keep-alive ${variant}${memoryMb === undefined ? '' : ` ${memoryMb} MB`}`;
  o.log(`\n${label}: seeding ${count} Persons over ${durationS} s (not counted; the reads pick among them)`);
  try {
    const r = await o.runArtillery({
      operation: 'create',
      labTarget: target,
      target: o.url,
      basePath: o.basePath(target, variant),
      durationS,
      ratePerS: SEED_RATE_PER_S,
      arrivalCount: count,
      outJson: join(o.outDir, `artillery-${target}-keepalive-${variant}-seed${suffix}.json`),
      // Always from this machine, even for a cloud run: setup, not measured, and its GovIds must
      // come back to be the reads' payload.
      env: {
        ...o.env,
        LAB_TIMINGS_FILE: join(o.outDir, 'seed-timings.jsonl'),
        LAB_GOVIDS_FILE: file,
      },
      variables: phaseVariables(o, variant, memoryMb),
      signal: o.signal,
      onProgress: (p) =>
        o.log(
          `  seeding: ${Math.round(p.elapsedS)}/${durationS} s  requests ${p.requests}  errors ${p.errors}`,
        ),
    });
    if (r.exitCode !== 0) o.logError(`  ${label}: seeding exited with ${r.exitCode}`);
  } catch (e) {
    // The phases still run; the reads then find no GovId and fail, which their rows show.
    o.logError(`  ${label}: seeding did not run: ${e instanceof Error ? e.message : String(e)}`);
  }
  const seeded = existsSync(file)
    ? readFileSync(file, 'utf8')
        .split('\n')
        .filter((l) => l.trim() !== '').length
    : 0;
  if (seeded < count) o.logError(`  ${label}: ${seeded} of ${count} Persons seeded`);
  else o.log(`  ${label}: ${seeded} Persons seeded`);
}

/**
 * The summary.json of a run of several closed-loop levels (npm run load --parallel 1,10,100):
 * every level's rows (each row says its parallel) and failed phases, and per level its folder,
 * lab block (concurrency reached, a cap's note) and throughput per minute of each phase.
 */
export function writeLevelsSummary(
  outDir: string,
  levels: readonly { readonly parallel: number; readonly dir: string }[],
): string {
  const read = levels.map((l) => ({ ...l, summary: readSummary(join(l.dir, 'summary.json')) }));
  const first = read[0]?.summary.lab ?? {};
  const lab = {
    ...first,
    parallel: levels.map((l) => l.parallel),
    maxInFlight: undefined,
    concurrencyNote: undefined,
    levels: read.map(({ parallel, dir, summary }) => ({
      parallel,
      dir: relative(outDir, dir),
      maxInFlight: summary.lab.maxInFlight ?? null,
      ...(summary.lab.concurrencyNote ? { concurrencyNote: summary.lab.concurrencyNote } : {}),
      perMinute: summary.runs.map((r) => ({
        target: r.target,
        keepAlive: r.keepAlive,
        phase: r.phase,
        requestsPerMinute: Math.round(r.throughputPerSec * 60),
      })),
    })),
  };
  return writeLoadSummary(
    outDir,
    lab,
    read.flatMap((r) => r.summary.runs),
    read.flatMap((r) => r.summary.failedPhases),
  );
}

/** 1 when a request or a phase failed. */
export function loadExitCode(rows: readonly LabRow[], failed: readonly FailedPhase[]): number {
  return failed.length > 0 || rows.some((r) => r.errors > 0) ? 1 : 0;
}
