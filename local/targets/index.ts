/** Every database target the local lab can run, as its module registered it (targets/registry.ts). */
import { registeredLocalTarget } from './registry';
import type { LocalTarget } from './types';

/** The target's local engine; a target without one is a clear error. */
export function localTarget(target: string): LocalTarget {
  const local = registeredLocalTarget(target);
  if (!local)
    throw new Error(
      `target ${target} has no local target: register its module (docs/targets.md: Adding a database target)`,
    );
  return local;
}

/** Every `--engine` choice the registered targets offer, each with its target. */
export function engineChoices(targets: readonly string[]): { kind: string; target: string }[] {
  return targets.flatMap((target) =>
    (registeredLocalTarget(target)?.engineKinds ?? []).map((kind) => ({ kind, target })),
  );
}

export type {
  ClientCommand,
  ClientCommandInput,
  CustomResourceRunner,
  LabCommand,
  LocalDatabase,
  LocalTarget,
  ModelAddress,
} from './types';
export { lazyLocalTarget, localName } from './types';
