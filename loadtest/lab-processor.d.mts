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
export function variantOf(basePath: string | undefined, label?: string): string;
