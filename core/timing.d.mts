/** Types of timing.mjs. */
export interface Timing {
  readonly dbMs: number;
  readonly newConnection: boolean;
  readonly dbRequests: number;
  readonly coldStart: boolean;
  readonly initType: string;
}
export const GOV_ID_PATTERN: RegExp;
export function isRecord(v: unknown): v is Record<string, unknown>;
export function isTiming(v: unknown): v is Timing;
export function timingOfBody(body: string): Timing | null;
export function reachedDatabase(status: number, timing: Timing | null | undefined): timing is Timing;
