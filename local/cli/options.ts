/** Command-line options shared by `npm run local` and `npm run load`: parsed once, validated with clear errors. */
import { UsageError } from '../../core/errors';
import { TARGETS, type Target, targetLabel } from '../../core/lab-functions';
import { profileOptions } from '../network/profile-options';
import { DEFAULT_PROFILE, PROFILE_NAMES } from '../network/profiles';
import { engineChoices } from '../targets';

export { UsageError } from '../../core/errors';

export function intOption(
  name: string,
  value: string | undefined,
  min: number,
  max: number,
  fallback: number,
): number {
  if (value === undefined) return fallback;
  if (!/^\d+$/.test(value) || Number(value) < min || Number(value) > max) {
    throw new UsageError(`--${name} must be an integer from ${min} to ${max}, got ${JSON.stringify(value)}`);
  }
  return Number(value);
}

export function numberOption(
  name: string,
  value: string | undefined,
  min: number,
  max: number,
  fallback: number,
): number {
  if (value === undefined) return fallback;
  const n = Number(value);
  if (value.trim() === '' || !Number.isFinite(n) || n < min || n > max) {
    throw new UsageError(`--${name} must be a number from ${min} to ${max}, got ${JSON.stringify(value)}`);
  }
  return n;
}

/** `--engine KIND`: one of the engines a registered target offers (LocalTarget.engineKinds); absent: each target's default. */
export function engineOption(value: string | undefined): string | undefined {
  if (value === undefined) return undefined;
  const kinds = engineChoices(TARGETS).map((c) => c.kind);
  if (!kinds.includes(value)) {
    throw new UsageError(`--engine must be one of ${kinds.join(', ')}, got ${JSON.stringify(value)}`);
  }
  return value;
}

/** The help's `--engine` line: each target's choices, its default first. */
export function engineHelp(width: number): string {
  const byTarget = new Map<string, string[]>();
  for (const { kind, target } of engineChoices(TARGETS))
    byTarget.set(target, [...(byTarget.get(target) ?? []), kind]);
  const choices = [...byTarget].map(
    ([t, kinds]) => `${targetLabel(t)}: ${kinds.join(', ')} (default ${kinds[0]})`,
  );
  return `${'  --engine NAME'.padEnd(width)}local engine of ${choices.join('; ') || 'no target (none offers a choice)'}`;
}

export function listOption<T extends string>(
  name: string,
  value: string | undefined,
  allowed: readonly T[],
  fallback: T[],
): T[] {
  if (value === undefined) return fallback;
  const items = value
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean);
  if (items.length === 0 || items.some((i) => !(allowed as readonly string[]).includes(i))) {
    throw new UsageError(
      `--${name} must be a comma list of ${allowed.join(', ')}, got ${JSON.stringify(value)}`,
    );
  }
  return [...new Set(items)] as T[];
}

/** `--memory 128,512,1769`: whole MB from 128 to 10,240, each once, in the order given. */
export function memoryListOption(value: string | undefined): number[] {
  if (value === undefined) return [];
  const items = value.split(',').map((s) => s.trim());
  const bad = items.find((i) => !/^\d+$/.test(i) || Number(i) < 128 || Number(i) > 10_240);
  if (items.length === 0 || bad !== undefined) {
    throw new UsageError(
      `--memory must be a comma list of whole MB from 128 to 10240, got ${JSON.stringify(value)}`,
    );
  }
  return [...new Set(items.map(Number))];
}

/**
 * `--profile NAME` and `--rtt MS | target=MS,...` for the local lab, checked as the lab reads
 * them: what startLab takes, or a usage error naming the option.
 */
export function networkOptions(
  profile: string | undefined,
  rtt: string | undefined,
): { profile?: string; rttMs?: number; rttByTarget?: Partial<Record<Target, number>> } {
  try {
    const { resolved: _, ...choice } = profileOptions(profile, rtt);
    return choice;
  } catch (e) {
    const message = (e as Error).message;
    throw new UsageError(message.startsWith('--rtt') ? message : `--profile: ${message}`);
  }
}

/** The help lines for --profile and --rtt, the same in every CLI. */
export const NETWORK_HELP = `  --profile NAME        network profile: ${PROFILE_NAMES.join(', ')} (default ${DEFAULT_PROFILE}),
                        per target a round trip and a service time, each cited (docs/local-lab.md)
  --rtt MS|T=MS,...     round trip instead of the profile's, for every target or some
                        (e.g. --rtt 2, or --rtt <target>=0.5,<target>=0.3)
  --seed N              seeds the service-time draws (default 1): the same seed repeats a run
  --cold-start model|off  model Lambda's sandbox and runtime start in every init, from
                        published empty-function Init Durations (default model; README)`;

/** `--cold-start model|off`: the lab's coldStartModel (local/host/cold-start-model.ts). */
export function coldStartOption(value: string | undefined): { coldStartModel?: boolean } {
  if (value === undefined) return {};
  if (value !== 'model' && value !== 'off')
    throw new UsageError(`--cold-start must be model or off, got ${JSON.stringify(value)}`);
  return { coldStartModel: value === 'model' };
}

/** `--seed N`: a whole number 0..2^32-1. */
export function seedOption(value: string | undefined): number | undefined {
  return value === undefined ? undefined : intOption('seed', value, 0, 4_294_967_295, 1);
}

/** The parseArgs spec of the compute options, the same in every CLI that starts a lab. */
export const COMPUTE_ARGS = {
  compute: { type: 'string' },
  'mi-max-concurrency': { type: 'string' },
  'mi-vcpus': { type: 'string' },
  'mi-memory-per-vcpu': { type: 'string' },
  'mi-min-envs': { type: 'string' },
} as const;

export const COMPUTE_HELP = `  --compute standard|managed-instances   standard Lambda (default), or synthesize with
                        -c compute=managed-instances and run as Lambda Managed Instances: several
                        invocations per environment, its vCPUs and memory, asynchronous scaling
                        (docs/managed-instances.md). The host reads the settings from the template
  --mi-max-concurrency N  invocations at once per environment, 1-1600 (default: 64 per vCPU)
  --mi-vcpus N          vCPUs per environment (default 1); memory = vCPUs x memory per vCPU
  --mi-memory-per-vcpu GiB  memory per vCPU: 2, 4 or 8 (default 2)
  --mi-min-envs N       environments running at start (default 3, as Lambda starts them)`;

/**
 * `--compute` and its `--mi-*` companions. The settings go into the synth context (compute,
 * memorySize = vCPUs x memory per vCPU, managedInstancesMaxConcurrency,
 * managedInstancesMemoryGiBPerVCpu), so the template carries them as it deploys and the host reads
 * them from there; only the environments at start are the lab's own. A companion without
 * `--compute managed-instances` is refused: it would do nothing.
 */
export function computeOptions(values: {
  compute?: string;
  'mi-max-concurrency'?: string;
  'mi-vcpus'?: string;
  'mi-memory-per-vcpu'?: string;
  'mi-min-envs'?: string;
  memory?: string;
}): {
  compute?: 'standard' | 'managed-instances';
  managedInstances?: { minEnvironments?: number };
  context: Record<string, string>;
} {
  const compute = values.compute ?? 'standard';
  if (compute !== 'standard' && compute !== 'managed-instances')
    throw new UsageError(`--compute must be standard or managed-instances, got ${JSON.stringify(compute)}`);
  const given = (['mi-max-concurrency', 'mi-vcpus', 'mi-memory-per-vcpu', 'mi-min-envs'] as const).filter(
    (k) => values[k] !== undefined,
  );
  if (compute === 'standard') {
    if (given.length > 0) throw new UsageError(`--${given[0]} needs --compute managed-instances`);
    return values.compute === undefined ? { context: {} } : { compute, context: {} };
  }
  if (values.memory !== undefined)
    throw new UsageError(
      '--memory does not apply with --compute managed-instances: memory is --mi-vcpus x --mi-memory-per-vcpu',
    );
  const vcpus = intOption('mi-vcpus', values['mi-vcpus'], 1, 64, 1);
  const perVCpu = values['mi-memory-per-vcpu'] ?? '2';
  if (!['2', '4', '8'].includes(perVCpu))
    throw new UsageError(`--mi-memory-per-vcpu must be 2, 4 or 8 (GiB), got ${JSON.stringify(perVCpu)}`);
  const maxConcurrency = values['mi-max-concurrency'];
  if (maxConcurrency !== undefined) intOption('mi-max-concurrency', maxConcurrency, 1, 1600, 1);
  const minEnvs = values['mi-min-envs'];
  return {
    compute,
    ...(minEnvs === undefined
      ? {}
      : { managedInstances: { minEnvironments: intOption('mi-min-envs', minEnvs, 1, 100, 3) } }),
    context: {
      compute,
      memorySize: String(vcpus * Number(perVCpu) * 1024),
      managedInstancesMemoryGiBPerVCpu: perVCpu,
      ...(maxConcurrency === undefined ? {} : { managedInstancesMaxConcurrency: maxConcurrency }),
    },
  };
}
