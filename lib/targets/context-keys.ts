/**
 * The CDK context keys the registered targets read (TargetModule.context), apart from the
 * definitions so parseConfig (lib/config.ts) reads them without the target types: a leaf.
 */

/** A CDK context key a target reads (e.g. the ARN of a secret the user made): checked by parseConfig. */
export interface TargetContextKey {
  /** What a valid value is, for the error line. */
  readonly allowed: string;
  /** Whether a trimmed, non-empty value is valid. */
  readonly valid: (value: string) => boolean;
  /** Whether a deployment of the target needs it. @default false */
  readonly required?: boolean;
}

const CONTEXT_KEYS = new Map<string, { readonly target: string; readonly key: TargetContextKey }>();

/** The context keys a target reads; a key another target registered is refused. */
export function registerTargetContext(
  target: string,
  keys: Readonly<Record<string, TargetContextKey>>,
): void {
  for (const name of Object.keys(keys)) {
    const other = CONTEXT_KEYS.get(name);
    if (other) throw new Error(`target ${target}: context key ${name} is already target ${other.target}'s`);
  }
  for (const [name, key] of Object.entries(keys)) CONTEXT_KEYS.set(name, { target, key });
}

/** Every registered target's context keys, by key. */
export const registeredContextKeys = (): ReadonlyMap<
  string,
  { readonly target: string; readonly key: TargetContextKey }
> => CONTEXT_KEYS;
