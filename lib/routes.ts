/**
 * Names shared by the stacks, the local host and the load tests: which functions exist
 * for a config, what they are called and which routes reach them.
 */
import type { KeepAliveVariant, Target } from './config';

export type Operation = 'create' | 'get';
export const OPERATIONS: readonly Operation[] = ['create', 'get'];

export interface LabFunction {
  readonly target: Target;
  readonly operation: Operation;
  readonly keepAlive: KeepAliveVariant;
  /** e.g. `dynamodb-create`, or `dynamodb-create-keepalive-off` when both variants deploy. */
  readonly key: string;
  /** PascalCase construct id and output prefix, e.g. `DynamodbCreate`. */
  readonly id: string;
  /** Handler file under lambda/handlers/, without extension. */
  readonly handlerFile: string;
  /** REST resource path, e.g. `/dynamodb/person` or `/dynamodb/keepalive-off/person/{govId}`. */
  readonly path: string;
  readonly method: 'POST' | 'GET';
}

const pascal = (s: string) =>
  s
    .split('-')
    .map((p) => p.charAt(0).toUpperCase() + p.slice(1))
    .join('');

/** With a single variant the path has none; with both, `keepalive-on|off` is a path segment. */
export function basePath(target: Target, variant: KeepAliveVariant, bothVariants: boolean): string {
  return bothVariants ? `/${target}/keepalive-${variant}` : `/${target}`;
}

export function labFunctions(
  targets: readonly Target[],
  variants: readonly KeepAliveVariant[],
): LabFunction[] {
  const both = variants.length > 1;
  const out: LabFunction[] = [];
  for (const target of targets) {
    for (const keepAlive of variants) {
      for (const operation of OPERATIONS) {
        const key = `${target}-${operation}${both ? `-keepalive-${keepAlive}` : ''}`;
        const base = `${basePath(target, keepAlive, both)}/person`;
        out.push({
          target,
          operation,
          keepAlive,
          key,
          id: pascal(key),
          handlerFile: `${target}-${operation}`,
          path: operation === 'create' ? base : `${base}/{govId}`,
          method: operation === 'create' ? 'POST' : 'GET',
        });
      }
    }
  }
  return out;
}
