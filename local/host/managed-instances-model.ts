/**
 * Lambda Managed Instances, locally: every figure the host models for them, each with its source,
 * so a better reading of the documentation changes one line.
 *
 * An execution environment serves up to its maximum concurrency of invocations at once, runs on
 * its chosen vCPUs with memory per vCPU x vCPUs, and new environments come from an asynchronous
 * scaler, never for the invocation that finds them all full: that one is throttled.
 */

/**
 * Node's default PerExecutionEnvironmentMaxConcurrency: "For Node.js runtimes, the default is 64
 * concurrent requests per vCPU". The same page: Node "uses worker threads with async/await-based
 * execution", one worker per vCPU by default, "Function initialization occurs once per worker
 * thread". https://docs.aws.amazon.com/lambda/latest/dg/lambda-managed-instances-nodejs-runtime.html
 * (read 2026-11-28). The lab runs one thread per environment: its async concurrency is modeled,
 * the parallelism of several workers is not (exact at 1 vCPU, the default).
 */
export const NODE_MAX_CONCURRENCY_PER_VCPU = 64;

/** PerExecutionEnvironmentMaxConcurrency's range, https://docs.aws.amazon.com/lambda/latest/api/API_LambdaManagedInstancesCapacityProviderConfig.html */
export const MAX_CONCURRENCY_RANGE = [1, 1600] as const;

/** ExecutionEnvironmentMemoryGiBPerVCpu's range, GiB (the same API page). */
export const MEMORY_GIB_PER_VCPU_RANGE = [2, 8] as const;

/**
 * Memory per vCPU when neither the template nor the lab's options set it, GiB: the lowest ratio,
 * "2:1 memory to vCPU ratio of c instances" (scaling page below). The lab's choice, not a
 * documented Lambda default.
 */
export const DEFAULT_MEMORY_GIB_PER_VCPU = 2;

/**
 * The smallest function: "The minimum supported function size is 2GB and 1 vCPU"; "You cannot
 * configure less than 1 vCPU". https://docs.aws.amazon.com/lambda/latest/dg/lambda-managed-instances-scaling.html
 */
export const MIN_VCPUS = 1;

/**
 * Environments running before the first invocation: publishing a version "launches three
 * [instances] by default for AZ resiliency and starts three execution environments before marking
 * your function version ACTIVE" (scaling page). The lab's options may lower it (a laptop, a test).
 */
export const DEFAULT_MIN_ENVIRONMENTS = 3;

/**
 * How fast new environments come: Managed Instances "does not scale when invocations arrive and
 * does not support cold starts. Instead, it scales asynchronously using resource consumption
 * signals ... CPU resource utilization and multi-concurrency saturation"; "If your traffic more
 * than doubles within 5 minutes, you may see throttles as Lambda scales up" (scaling page). Modeled
 * as: the environments may at most double over any SCALE_WINDOW_MS; a saturated environment (all
 * its slots in use) is the signal. CPU utilization as a signal is not modeled.
 */
export const SCALE_WINDOW_MS = 5 * 60 * 1000;
export const SCALE_FACTOR_PER_WINDOW = 2;

/**
 * What a caller gets for an invocation no environment can take: Lambda's HTTP 429 ("throttling
 * errors (HTTP 429) when traffic increases rapidly";
 * https://docs.aws.amazon.com/lambda/latest/dg/lambda-managed-instances-troubleshooting.html).
 * Behind API Gateway a Lambda throttle is the API's 500 Internal server error, which the local API
 * already answers for a throttled invocation (local/server/api-gateway.ts integrationFailure).
 */
export const THROTTLE_STATUS = 429;

/*
 * The environment itself (https://docs.aws.amazon.com/lambda/latest/dg/lambda-managed-instances-execution-environment.html,
 * read 2026-11-28), as the host runs it: it runs continuously, never frozen between invocations;
 * a timeout fails that invocation alone, neither ending the environment nor stopping the code,
 * which runs on; an invocation that finds every slot busy is rejected, not queued.
 */

/** What one function's environments run with on Managed Instances. */
export interface ManagedInstancesSettings {
  /** Invocations one environment takes at once. */
  readonly maxConcurrency: number;
  /** The environment's vCPUs: its CFS quota in cores. */
  readonly vcpus: number;
  readonly memoryGiBPerVCpu: number;
  /** Environments started before the first request; the scaler never goes below it. */
  readonly minEnvironments: number;
  /** Where the settings came from, for the lab's start line. */
  readonly source: 'template' | 'options';
}

/** The environment's memory, MB: memory per vCPU x vCPUs. */
export const environmentMemoryMb = (s: ManagedInstancesSettings): number =>
  Math.round(s.memoryGiBPerVCpu * s.vcpus * 1024);

/** The template's capacity provider settings of one function (AssemblyFunction.capacityProvider). */
export interface TemplateCapacityProvider {
  readonly maxConcurrency?: number;
  readonly memoryGiBPerVCpu?: number;
}

/** The lab's own choice (`--mi-*`), used for a function whose template has no capacity provider. */
export interface ManagedInstancesOptions {
  readonly maxConcurrency?: number;
  readonly vcpus?: number;
  readonly memoryGiBPerVCpu?: number;
  readonly minEnvironments?: number;
}

function inRange(what: string, v: number, [lo, hi]: readonly [number, number], integer: boolean): number {
  if (!Number.isFinite(v) || v < lo || v > hi || (integer && !Number.isInteger(v)))
    throw new Error(`${what} must be ${integer ? 'an integer' : 'a number'} from ${lo} to ${hi}, got ${v}`);
  return v;
}

/**
 * One function's settings. The template wins where it has a capacity provider (what runs locally
 * is what deploys): its memory setting / (memory per vCPU x 1024) gives the vCPUs, as Lambda
 * derives them. Otherwise the lab's options, with Node's defaults.
 */
export function resolveManagedInstances(
  fnMemoryMb: number,
  template: TemplateCapacityProvider | undefined,
  options: ManagedInstancesOptions = {},
): ManagedInstancesSettings {
  const minEnvironments = inRange(
    'minEnvironments',
    options.minEnvironments ?? DEFAULT_MIN_ENVIRONMENTS,
    [1, 100],
    true,
  );
  if (template) {
    const memoryGiBPerVCpu = template.memoryGiBPerVCpu ?? DEFAULT_MEMORY_GIB_PER_VCPU;
    const vcpus = Math.max(MIN_VCPUS, Math.floor(fnMemoryMb / (memoryGiBPerVCpu * 1024)));
    return {
      maxConcurrency: template.maxConcurrency ?? NODE_MAX_CONCURRENCY_PER_VCPU * vcpus,
      vcpus,
      memoryGiBPerVCpu,
      minEnvironments,
      source: 'template',
    };
  }
  const vcpus = inRange('vCPUs', options.vcpus ?? MIN_VCPUS, [MIN_VCPUS, 64], true);
  return {
    maxConcurrency: inRange(
      'max concurrency',
      options.maxConcurrency ?? NODE_MAX_CONCURRENCY_PER_VCPU * vcpus,
      MAX_CONCURRENCY_RANGE,
      true,
    ),
    vcpus,
    memoryGiBPerVCpu: inRange(
      'memory per vCPU (GiB)',
      options.memoryGiBPerVCpu ?? DEFAULT_MEMORY_GIB_PER_VCPU,
      MEMORY_GIB_PER_VCPU_RANGE,
      false,
    ),
    minEnvironments,
    source: 'options',
  };
}

/**
 * The scaler's pace: environments may at most double over any SCALE_WINDOW_MS. `allow` says
 * whether one more may start now, counted against the environments there were a window ago.
 */
export class ScalingGate {
  /** Each scale-out's time, ms (this clock), oldest first. */
  private readonly starts: number[] = [];
  constructor(private readonly now: () => number = () => performance.now()) {}

  /** True, and counted, when the environments (`current`) may grow by one now. */
  allow(current: number): boolean {
    const t = this.now();
    while (this.starts.length > 0 && (this.starts[0] as number) <= t - SCALE_WINDOW_MS) this.starts.shift();
    const atWindowStart = current - this.starts.length;
    if (current + 1 > Math.max(1, atWindowStart) * SCALE_FACTOR_PER_WINDOW) return false;
    this.starts.push(t);
    return true;
  }
}

/**
 * The instance family whose memory per vCPU a function's ratio fits, smallest first: Graviton C, M
 * and R have 2, 4 and 8 GiB per vCPU ("2:1 memory to vCPU ratio of c instances", scaling page; the
 * price files' units give each type's vCPUs and memory). The lab's functions are arm64; each
 * family's .large (2 vCPUs) is the smallest Managed Instances run (docs/managed-instances.md).
 */
const INSTANCE_FAMILIES = [
  { memoryGiBPerVCpu: 2, type: 'c7g.large' },
  { memoryGiBPerVCpu: 4, type: 'm7g.large' },
  { memoryGiBPerVCpu: 8, type: 'r7g.large' },
] as const;
export const VCPUS_PER_LARGE = 2;
/** A published version "launches three [instances] by default for AZ resiliency" (scaling page). */
export const MIN_INSTANCES = 3;

/** The instance type a capacity provider with no type of its own would pick for these settings. */
export function instanceTypeOf(s: Pick<ManagedInstancesSettings, 'memoryGiBPerVCpu'>): string {
  const family = INSTANCE_FAMILIES.find((f) => s.memoryGiBPerVCpu <= f.memoryGiBPerVCpu);
  return (family ?? INSTANCE_FAMILIES[INSTANCE_FAMILIES.length - 1]).type;
}

/**
 * Instances a function's environments need, as if it had its capacity provider to itself: the
 * environments' vCPUs packed on .large instances, and never fewer than the three a published version
 * starts on "by default for AZ resiliency" (scaling page). How Lambda packs environments of several
 * functions on one provider's instances is not documented, so a phase is charged its own.
 */
export function instancesFor(environments: number, s: Pick<ManagedInstancesSettings, 'vcpus'>): number {
  return Math.max(MIN_INSTANCES, Math.ceil((environments * s.vcpus) / VCPUS_PER_LARGE));
}
