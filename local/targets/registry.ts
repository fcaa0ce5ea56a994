/**
 * The local targets registered at run time (targets/registry.ts), apart from index.ts so
 * registering one starts or loads no engine code.
 */
import type { LocalTarget } from './types';

const REGISTERED = new Map<string, LocalTarget>();

export function registerLocalTarget(name: string, target: LocalTarget): void {
  if (REGISTERED.has(name)) throw new Error(`target ${name} already has a local target`);
  REGISTERED.set(name, target);
}

export const registeredLocalTarget = (name: string): LocalTarget | undefined => REGISTERED.get(name);
