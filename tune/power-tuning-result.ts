/**
 * What a Power Tuning run gives and what `npm run tune` saves: the types and the readers.
 * Plain data only, no AWS SDK: the report reads saved results through this module alone.
 */
import { isRecord } from '../core/timing.mjs';

/** The execution's input, as Power Tuning 4.x reads it (README-INPUT-OUTPUT.md). */
export interface PowerTuningInput {
  readonly lambdaARN: string;
  readonly powerValues: readonly number[];
  readonly num: number;
  readonly payload: unknown;
  readonly strategy: string;
  readonly parallelInvocation: false;
  /** Adds per-power-value averages (`stats`) to the output. */
  readonly includeOutputResults: true;
}

export interface PowerTuningStat {
  readonly value: number;
  readonly averagePrice?: number;
  readonly averageDuration?: number;
  readonly totalCost?: number;
}

export interface PowerTuningOutput {
  readonly power: number;
  readonly cost: number;
  readonly duration: number;
  readonly stateMachine?: {
    readonly executionCost?: number;
    readonly lambdaCost?: number;
    readonly visualization?: string;
  };
  readonly stats?: readonly PowerTuningStat[];
}

/** The JSON file `npm run tune` writes under results/tuning/. */
export interface TuneResultFile {
  readonly function: { readonly key: string; readonly name: string; readonly functionArn: string };
  readonly stateMachineArn: string;
  readonly executionArn: string;
  readonly startDate?: string;
  readonly stopDate?: string;
  readonly input: PowerTuningInput;
  /** The state machine output as returned, unchanged. */
  readonly output: unknown;
}

/** A saved result read back; fields a hand-edited or older file lacks are null. */
export interface SavedTuneResult {
  /** The function key, else its name, else a plain string `function`. */
  readonly function: string | null;
  readonly executionArn: string | null;
  readonly strategy: string | null;
  /** `local` for `npm run tune -- --target local`, else the deployed state machine. */
  readonly where: 'aws' | 'local';
  /** The network profile a local run used. */
  readonly profile: string | null;
  readonly output: PowerTuningOutput;
}

const num = (v: unknown): number | undefined => {
  const n = typeof v === 'string' && v.trim() !== '' ? Number(v) : v;
  return typeof n === 'number' && Number.isFinite(n) ? n : undefined;
};

const str = (v: unknown): string | null => (typeof v === 'string' ? v : null);

/** Reads the output; undefined when it holds no result (Power Tuning failed and cleaned up). */
export function parsePowerTuningOutput(raw: unknown): PowerTuningOutput | undefined {
  if (!isRecord(raw)) return undefined;
  // The README shows the result under `results`; the state machine returns it at the top level.
  const inner = 'results' in raw ? raw.results : raw;
  const r = isRecord(inner) ? inner : {};
  const power = num(r.power);
  const cost = num(r.cost);
  const duration = num(r.duration);
  if (power === undefined || cost === undefined || duration === undefined) return undefined;
  const sm = isRecord(r.stateMachine) ? r.stateMachine : {};
  const stats = Array.isArray(r.stats)
    ? r.stats.flatMap((o: unknown): PowerTuningStat[] => {
        if (!isRecord(o)) return [];
        const value = num(o.value);
        if (value === undefined) return [];
        return [
          {
            value,
            averagePrice: num(o.averagePrice),
            averageDuration: num(o.averageDuration),
            totalCost: num(o.totalCost),
          },
        ];
      })
    : undefined;
  return {
    power,
    cost,
    duration,
    stateMachine: {
      executionCost: num(sm.executionCost),
      lambdaCost: num(sm.lambdaCost),
      visualization: typeof sm.visualization === 'string' ? sm.visualization : undefined,
    },
    ...(stats ? { stats } : {}),
  };
}

/** Reads a saved result file's JSON; undefined when it holds no result. */
export function parseTuneResultFile(json: unknown): SavedTuneResult | undefined {
  const o = isRecord(json) ? json : {};
  const output = parsePowerTuningOutput(o.output);
  if (!output) return undefined;
  const fn = isRecord(o.function) ? o.function : {};
  const input = isRecord(o.input) ? o.input : {};
  return {
    function: str(fn.key) ?? str(fn.name) ?? str(o.function),
    executionArn: str(o.executionArn),
    strategy: str(input.strategy),
    where: o.where === 'local' ? 'local' : 'aws',
    profile: str(o.profile),
    output,
  };
}

/** `results/tuning/dynamodb-get-2025-01-02T03-04-05Z.json`: sortable, no ':' for other filesystems. */
export function resultFileName(key: string, nowMs: number): string {
  const stamp = new Date(nowMs)
    .toISOString()
    .replace(/\.\d+Z$/, 'Z')
    .replace(/:/g, '-');
  return `${key}-${stamp}.json`;
}
