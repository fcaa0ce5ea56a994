/**
 * The CDK definitions of the registered targets (targets/registry.ts), apart from index.ts so
 * registering one loads no construct library: only types come from aws-cdk-lib here, and a
 * module may give a loader that index.ts calls when the stacks need it.
 */
import type { TargetDefinition, TargetDefinitionSource } from './types';

const REGISTERED = new Map<string, TargetDefinitionSource>();

export function registerTargetDefinition(name: string, definition: TargetDefinitionSource): void {
  if (REGISTERED.has(name)) throw new Error(`target ${name} already has a CDK definition`);
  REGISTERED.set(name, definition);
}

export const registeredTargetDefinitions = (): ReadonlyMap<string, TargetDefinitionSource> => REGISTERED;

export type { TargetDefinition };
