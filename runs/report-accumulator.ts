/**
 * REPORT and INIT_REPORT lines of one function (or one run group), folded as they are read:
 * histograms and running sums, never arrays, so a million lines of one function take the
 * same memory as ten.
 */
import type { InitRecord, ReportRecord } from './lambda-log-parser';
import { LatencyHistogram } from './latency-histogram';

export class ReportAccumulator {
  /** every invocation's Duration */
  readonly duration = new LatencyHistogram();
  /** Duration of invocations that paid an on-demand init (their REPORT has Init Duration) */
  readonly cold = new LatencyHistogram();
  readonly warm = new LatencyHistogram();
  /** Init Duration of cold invocations and of INIT_REPORT lines (provisioned or failed inits) */
  readonly init = new LatencyHistogram();
  private reportCount = 0;
  private coldCount = 0;
  private billedSum = 0;
  private maxMemory = 0;
  private readonly memory = new Set<number>();
  private provisioned = 0;
  private failed = 0;
  private failedCalls = 0;

  addReport(r: ReportRecord): void {
    this.reportCount += 1;
    this.duration.record(r.durationMs);
    if (r.initDurationMs !== undefined) {
      this.coldCount += 1;
      this.cold.record(r.durationMs);
      this.init.record(r.initDurationMs);
    } else this.warm.record(r.durationMs);
    this.billedSum += r.billedDurationMs;
    if (r.maxMemoryUsedMb > this.maxMemory) this.maxMemory = r.maxMemoryUsedMb;
    // A handful of sizes at most (one per configuration the log spans): bounded.
    this.memory.add(r.memorySizeMb);
    if (r.status !== undefined) this.failedCalls += 1;
  }

  addInit(i: InitRecord): void {
    this.init.record(i.initDurationMs);
    if (i.status === 'success') this.provisioned += 1;
    else this.failed += 1;
  }

  /** REPORT lines */
  get invocations(): number {
    return this.reportCount;
  }

  /** REPORT lines with Init Duration */
  get onDemandColdStarts(): number {
    return this.coldCount;
  }

  get initReports(): number {
    return this.provisioned + this.failed;
  }

  get provisionedInits(): number {
    return this.provisioned;
  }

  get failedInits(): number {
    return this.failed;
  }

  /** REPORT lines with a Status (error, timeout) */
  get failedInvocations(): number {
    return this.failedCalls;
  }

  get billedDurationAvg(): number {
    return this.reportCount === 0 ? 0 : this.billedSum / this.reportCount;
  }

  get maxMemoryUsedMb(): number {
    return this.maxMemory;
  }

  /** The configured memory when every line agrees, else null. */
  get memorySizeMb(): number | null {
    return this.memory.size === 1 ? [...this.memory][0] : null;
  }
}
