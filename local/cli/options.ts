/** Command-line options shared by `npm run local` and `npm run load`: parsed once, validated with clear errors. */
import { UsageError } from '../../core/errors';
import type { Target } from '../../core/lab-functions';
import { ENGINE_KINDS, type EngineKind } from '../engines/types';
import { profileOptions } from '../network/profile-options';
import { DEFAULT_PROFILE, PROFILE_NAMES } from '../network/profiles';

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

export function engineOption(value: string | undefined): EngineKind {
  const v = value ?? 'dynalite';
  if (!(ENGINE_KINDS as readonly string[]).includes(v)) {
    throw new UsageError(`--engine must be one of ${ENGINE_KINDS.join(', ')}, got ${JSON.stringify(v)}`);
  }
  return v as EngineKind;
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
                        (e.g. --rtt dynamodb=0.5,redis=0.3)
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

export const COMPUTE_HELP = `  --compute standard|managed-instances   run the functions as on standard Lambda (default) or on
                        Lambda Managed Instances: several invocations per environment, vCPUs and
                        memory per vCPU chosen, asynchronous scaling (docs/managed-instances.md). A
                        function whose template has a capacity provider runs so with its settings
  --mi-max-concurrency N  invocations at once per environment, 1-1600 (default 64 per vCPU)
  --mi-vcpus N          vCPUs per environment (default 1)
  --mi-memory-per-vcpu GiB  memory per vCPU, 2-8 (default 2)
  --mi-min-envs N       environments running at start (default 3, as Lambda starts them)`;

/**
 * `--compute` and its `--mi-*` companions: what startLab takes (compute, managedInstances). A
 * companion without `--compute managed-instances` is refused: it would do nothing.
 */
export function computeOptions(values: {
  compute?: string;
  'mi-max-concurrency'?: string;
  'mi-vcpus'?: string;
  'mi-memory-per-vcpu'?: string;
  'mi-min-envs'?: string;
}): {
  compute?: 'standard' | 'managed-instances';
  managedInstances?: {
    maxConcurrency?: number;
    vcpus?: number;
    memoryGiBPerVCpu?: number;
    minEnvironments?: number;
  };
} {
  const compute = values.compute ?? 'standard';
  if (compute !== 'standard' && compute !== 'managed-instances')
    throw new UsageError(`--compute must be standard or managed-instances, got ${JSON.stringify(compute)}`);
  const given = (['mi-max-concurrency', 'mi-vcpus', 'mi-memory-per-vcpu', 'mi-min-envs'] as const).filter(
    (k) => values[k] !== undefined,
  );
  if (compute === 'standard') {
    if (given.length > 0) throw new UsageError(`--${given[0]} needs --compute managed-instances`);
    return values.compute === undefined ? {} : { compute };
  }
  const opt = <T>(k: (typeof given)[number], parse: (v: string) => T): T | undefined => {
    const v = values[k];
    return v === undefined ? undefined : parse(v);
  };
  const managedInstances = {
    maxConcurrency: opt('mi-max-concurrency', (v) => intOption('mi-max-concurrency', v, 1, 1600, 1)),
    vcpus: opt('mi-vcpus', (v) => intOption('mi-vcpus', v, 1, 64, 1)),
    memoryGiBPerVCpu: opt('mi-memory-per-vcpu', (v) => numberOption('mi-memory-per-vcpu', v, 2, 8, 2)),
    minEnvironments: opt('mi-min-envs', (v) => intOption('mi-min-envs', v, 1, 100, 3)),
  };
  return {
    compute,
    managedInstances: Object.fromEntries(Object.entries(managedInstances).filter(([, v]) => v !== undefined)),
  };
}
