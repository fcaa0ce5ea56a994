/**
 * What Lambda's memory setting means for an execution environment: its CPU share, its V8
 * heap flags and its memory ceiling. Every figure lives here, each with where it comes from,
 * so a better measurement changes one line.
 */

/**
 * One full vCPU at 1,769 MB: "At 1,769 MB, a function has the equivalent of one vCPU (one
 * vCPU-second of credits per second)".
 * https://docs.aws.amazon.com/lambda/latest/dg/configuration-memory.html (read 2026-11-25)
 */
export const MB_PER_VCPU = 1769;

/** Lambda's memory range, MB. https://docs.aws.amazon.com/lambda/latest/dg/gettingstarted-limits.html (read 2026-11-25) */
export const MIN_MEMORY_MB = 128;
export const MAX_MEMORY_MB = 10_240;

/** "up to 6 vCPUs" at 10,240 MB (same quotas page). The linear share reaches 5.79 there; 6 caps it. */
export const MAX_VCPUS = 6;

/**
 * The CFS period Lambda's quota runs over. Measured (pwrdrvr/lambda-throttling, 2025): at
 * 128 MB a function gets ~1.45 ms of CPU per 20 ms, and its stalls come in multiples of 20 ms,
 * i.e. quota = 20 ms x memory / 1,769 MB. https://github.com/pwrdrvr/lambda-throttling
 */
export const CFS_PERIOD_US = 20_000;

/**
 * On-demand init runs unthrottled, about one full vCPU, for at most 10 s; provisioned-
 * concurrency init gets no such burst. The serverlessland guide (AWS-authored) on Lambda's
 * init phase, confirmed by measurements in the Datadog Lambda extension's PR #700 (read 2026-11-25):
 * https://github.com/DataDog/datadog-lambda-extension/pull/700
 */
export const INIT_BURST_VCPUS = 1;
export const INIT_BURST_MS = 10_000;

/** The kernel refuses a CFS quota under 1 ms. */
const MIN_QUOTA_US = 1000;

/** vCPUs Lambda gives a memory size: memory / 1,769 MB, at most MAX_VCPUS. */
export function vcpusFor(memoryMb: number): number {
  return Math.min(memoryMb / MB_PER_VCPU, MAX_VCPUS);
}

export interface CpuLimit {
  /** CPU time allowed per period, µs (cpu.max's first field, cfs_quota_us). */
  readonly quotaUs: number;
  readonly periodUs: number;
  /** quotaUs / periodUs: cores' worth of CPU. */
  readonly vcpus: number;
}

/** A share of `vcpus` cores as a CFS quota over Lambda's period, capped by the host's cores. */
export function cpuLimit(vcpus: number, hostCores: number): CpuLimit {
  const share = Math.min(vcpus, hostCores);
  const quotaUs = Math.max(MIN_QUOTA_US, Math.round(CFS_PERIOD_US * share));
  return { quotaUs, periodUs: CFS_PERIOD_US, vcpus: quotaUs / CFS_PERIOD_US };
}

/** The quota an environment runs its invocations under. */
export function invokeCpuLimit(memoryMb: number, hostCores: number): CpuLimit {
  return cpuLimit(vcpusFor(memoryMb), hostCores);
}

/**
 * The quota of an init: on-demand gets the burst (at least INIT_BURST_VCPUS, for at most
 * INIT_BURST_MS), provisioned concurrency its memory's share, as its invocations.
 */
export function initCpuLimit(
  memoryMb: number,
  hostCores: number,
  initType: 'on-demand' | 'provisioned-concurrency',
): CpuLimit {
  const share = vcpusFor(memoryMb);
  return cpuLimit(initType === 'on-demand' ? Math.max(share, INIT_BURST_VCPUS) : share, hostCores);
}

/**
 * The V8 flags Lambda's Node bootstrap passes: new space = memory / 10, semi space = new / 2,
 * old space = memory - new space (integer MB, as the bootstrap's `expr` computes them). None
 * when NODE_OPTIONS already sets either flag, as the bootstrap skips them then.
 * (The bootstrap of the managed nodejs runtimes, /var/runtime/bootstrap; the same lines are in
 * AWS's published runtime images.)
 */
export function heapFlags(memoryMb: number, nodeOptions = ''): string[] {
  if (/--max-(old|semi)-space-size/.test(nodeOptions)) return [];
  const newSpace = Math.floor(memoryMb / 10);
  return [`--max-semi-space-size=${Math.floor(newSpace / 2)}`, `--max-old-space-size=${memoryMb - newSpace}`];
}

/** The memory ceiling of an environment's cgroup: the setting, in MiB as Lambda counts it. */
export const memoryLimitBytes = (memoryMb: number): number => memoryMb * 1024 * 1024;

/** A memory size the lab accepts, or a clear error. */
export function checkMemoryMb(memoryMb: number, what = 'memory'): number {
  if (!Number.isInteger(memoryMb) || memoryMb < MIN_MEMORY_MB || memoryMb > MAX_MEMORY_MB) {
    throw new Error(
      `${what} must be a whole number of MB from ${MIN_MEMORY_MB} to ${MAX_MEMORY_MB}, got ${memoryMb}`,
    );
  }
  return memoryMb;
}
