/** Reads `dynamodb-create-keepalive-off` style function keys back into their parts. */
import { OPERATIONS, type Operation } from '../lib/routes';

export interface FunctionKeyParts {
  readonly target: string;
  readonly operation: Operation;
  /** undefined when a single variant is deployed (no suffix). */
  readonly keepAlive?: 'on' | 'off';
}

export function parseFunctionKey(key: string): FunctionKeyParts | undefined {
  const m = /^([a-z0-9]+)-([a-z]+)(?:-keepalive-(on|off))?$/.exec(key);
  if (!m || !(OPERATIONS as readonly string[]).includes(m[2])) return undefined;
  return { target: m[1], operation: m[2] as Operation, keepAlive: m[3] as 'on' | 'off' | undefined };
}
