/** Types of timing.mjs. */
export interface Timing {
  readonly dbMs: number;
  readonly newConnection: boolean;
  readonly dbRequests: number;
  /** absent from timings written before it existed */
  readonly dbRoundTrips?: number;
  /**
   * The protocol commands the call sent, by name (QLDB: StartSession, StartTransaction,
   * ExecuteStatement, CommitTransaction, ...); absent where the protocol has one kind of request
   */
  readonly dbCommands?: Readonly<Record<string, number>>;
  readonly coldStart: boolean;
  readonly initType: string;
  /** the execution environment (its log stream name); absent from timings written before it existed */
  readonly environment?: string;
  /**
   * Invocations in flight in the function's runtime when this one started, itself included: 1 on
   * standard Lambda, up to the per-environment maximum on Managed Instances. Absent from timings
   * written before it existed.
   */
  readonly concurrency?: number;
  /**
   * What the call was billed, counted by the client layer (lambda/shared/bill-meter.ts):
   * DynamoDB capacity units, Redis commands, DSQL's bytes and time. Absent when nothing was.
   */
  readonly billed?: readonly BilledQuantity[];
}
/** How a billed-unit count was obtained, strongest first: returned by the service, computed by its rules, or modeled. */
export const UNIT_BASES: readonly ['measured', 'computed', 'modeled'];
export type UnitBasis = (typeof UNIT_BASES)[number];
/** The weaker of two bases: a sum is only as good as its weakest part. */
export function weakerBasis(a: UnitBasis, b: UnitBasis): UnitBasis;
export interface BilledQuantity {
  readonly key: string;
  readonly quantity: number;
  readonly basis: UnitBasis;
}
/** One line of the timings JSONL the Artillery processor writes: one per response. */
export interface TimingLine {
  /** epoch ms when the response was processed */
  readonly at: number;
  /** database target from the scenario */
  readonly target: string;
  /** keep-alive variant: on | off | default (single-variant deployment without LAB_KEEPALIVE) */
  readonly variant: string;
  /** the operation: create | get | ... */
  readonly phase: string;
  /** the function memory setting the phase ran at, MB (LAB_MEMORY_MB); absent when the run set none */
  readonly memoryMb?: number;
  readonly status: number;
  /** artillery's http.response_time for this request (time to first byte), ms */
  readonly clientMs: number | null;
  readonly govId: string | null;
  /** null when the body had no well-formed timing block (e.g. a gateway error page) */
  readonly timing: Timing | null;
}

export const GOV_ID_PATTERN: RegExp;
export function isRecord(v: unknown): v is Record<string, unknown>;
export function isTiming(v: unknown): v is Timing;
export function isCommandCounts(v: unknown): v is Readonly<Record<string, number>>;
export function isBilledQuantity(v: unknown): v is BilledQuantity;
export function isTimingLine(v: unknown): v is TimingLine;
export function timingOfBody(body: string): Timing | null;
export function reachedDatabase(
  status: number,
  timing:
    | { readonly dbMs?: number; readonly newConnection?: boolean; readonly dbRequests?: number }
    | null
    | undefined,
): boolean;
