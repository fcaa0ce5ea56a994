/**
 * The CDK definitions of targets registered at run time (targets/registry.ts), apart from
 * index.ts so registering one loads no construct library: only types come from aws-cdk-lib here.
 */
import type { TargetDefinition } from './types';

const REGISTERED = new Map<string, TargetDefinition>();

export function registerTargetDefinition(name: string, definition: TargetDefinition): void {
  if (REGISTERED.has(name)) throw new Error(`target ${name} already has a CDK definition`);
  REGISTERED.set(name, definition);
}

export const registeredTargetDefinition = (name: string): TargetDefinition | undefined =>
  REGISTERED.get(name);
