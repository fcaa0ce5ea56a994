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

export type { Timing as LabTiming, TimingLine } from '../core/timing.d.mts';

export const GOV_ID_TYPES: readonly string[];
export function govIdPrefix(prefix: string | undefined): string;
export function buildPerson(prefix?: string): LabPerson;
export function fakeAddress(): string;
export function variantOf(basePath: string | undefined, label?: string): string;

/** What the processor's hooks read and write of Artillery's request and virtual user. */
export interface LabRequestParams {
  body?: string;
  url?: string;
  method?: string;
  headers?: Record<string, string>;
}
export interface LabContext {
  vars: Record<string, unknown>;
}
export type LabHook = (
  requestParams: LabRequestParams,
  context: LabContext,
  events: unknown,
  next: (error?: Error) => void,
) => void;
export const PUT10_COUNT: number;
export const setPersonsBody: LabHook;
export const nextGovId: LabHook;
export const setOverwriteBody: LabHook;
export const setAddressChange: LabHook;
export const pickGovIdType: LabHook;
/** The payload's pick seed (labPickSeed); undefined without one; throws on one that is not a whole number. */
export function pickSeedOf(context: LabContext): number | undefined;
