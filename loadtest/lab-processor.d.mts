/** Types of lab-processor.mjs for TypeScript callers (the driver, results.ts and tests). */

/** The Person body the create scenario posts (lambda/shared/person.ts validates it). */
export interface LabPerson {
  readonly GovId: string;
  readonly FirstName: string;
  readonly LastName: string;
  readonly DOB: string;
  readonly GovIdType: string;
  readonly Address: string;
}

/** The timing block every lab response carries (lambda/shared/timing.ts). */
export interface LabTiming {
  readonly dbMs: number;
  readonly newConnection: boolean;
  readonly coldStart: boolean;
  readonly initType: string;
}

/** One line of LAB_TIMINGS_FILE: one per response. */
export interface TimingLine {
  /** epoch ms when the response was processed */
  readonly at: number;
  /** database target from the scenario: dynamodb | qldb */
  readonly target: string;
  /** keep-alive variant: on | off | default (single-variant deployment without LAB_KEEPALIVE) */
  readonly variant: string;
  /** create | get */
  readonly phase: string;
  readonly status: number;
  /** artillery's http.response_time for this request (time to first byte), ms */
  readonly clientMs: number | null;
  readonly govId: string | null;
  /** null when the body had no well-formed timing block (e.g. a gateway error page) */
  readonly timing: LabTiming | null;
}

export const GOV_ID_TYPES: readonly string[];
export function govIdPrefix(prefix: string | undefined): string;
export function buildPerson(prefix?: string): LabPerson;
export function parseTiming(body: string): LabTiming | null;
export function variantOf(basePath: string | undefined, label?: string): string;
