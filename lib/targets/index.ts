/**
 * Every database target the stacks can deploy, as its module registered it (targets/registry.ts).
 * A module may give its definition as a loader, so that registering it loads no construct
 * library: loadTargetDefinitions resolves the loaders before the stacks are built.
 */
import { registeredTargetDefinitions } from './registry';
import type { TargetDefinition } from './types';

const LOADED = new Map<string, TargetDefinition>();

/** Resolves every registered target's definition not yet loaded. The CDK app calls it after registering. */
export async function loadTargetDefinitions(): Promise<void> {
  for (const [name, given] of registeredTargetDefinitions()) {
    if (LOADED.has(name)) continue;
    LOADED.set(name, typeof given === 'function' ? await given() : given);
  }
}

// The targets registered before the stacks load (a test's setup, a CLI's preload) are ready at import.
await loadTargetDefinitions();

/** The target's CDK definition; a target without one is a clear error, never a silent skip. */
export function targetDefinition(target: string): TargetDefinition {
  const definition = LOADED.get(target);
  if (definition) return definition;
  const given = registeredTargetDefinitions().get(target);
  if (given !== undefined && typeof given !== 'function') return given;
  throw new Error(
    given
      ? `target ${target}: its CDK definition is not loaded yet (await loadTargetDefinitions() before building the stacks)`
      : `target ${target} has no CDK definition: register its module (docs/targets.md: Adding a database target)`,
  );
}

export type { DatabaseBinding, DataProps, TargetDefinition } from './types';
