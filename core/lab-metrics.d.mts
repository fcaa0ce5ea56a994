/** Types of lab-metrics.mjs. */
import type { Timing } from './timing.d.mts';

export const METRIC: {
  readonly responses: string;
  readonly timed: string;
  readonly timingMissing: string;
  readonly coldStarts: string;
  readonly initTypePrefix: string;
  readonly dbCalls: string;
  readonly newConnections: string;
  readonly dbCommandsPrefix: string;
  readonly environmentPrefix: string;
  readonly warmDbCalls: string;
  readonly warmNewConnections: string;
  readonly loadOpenPrefix: string;
  readonly loadClosed: string;
  readonly dbUs: string;
  readonly dbRequests: string;
  readonly dbRoundTrips: string;
  readonly warmNewConnectionDbUs: string;
  readonly warmReusedDbUs: string;
  readonly inFlight: string;
};
export function breakdownKey(commands: Readonly<Record<string, number>>): string;
export function parseBreakdownKey(key: string): Record<string, number> | undefined;
export function responseMetrics(
  status: number,
  timing: Timing | null,
): ['counter' | 'histogram', string, number][];
export class InFlight {
  add(at: number, clientMs: number): number;
}
