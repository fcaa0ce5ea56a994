/**
 * What the valkey target's cache user may do, the same string for the ElastiCache user (cdk.ts)
 * and the local server's ACL (engine.ts), so a command the cloud refuses is refused locally too.
 * Light: the module's index, the CDK half and the engine all read it.
 */

/**
 * The hash tag every key of this target starts with. A serverless cache is cluster-mode enabled
 * and refuses a multi-key command or script whose keys fall in different slots (CROSSSLOT); keys
 * that share a hash tag share a slot (Valkey cluster specification, "Hash tags").
 */
export const KEY_PREFIX = '{lab}:';

/**
 * Redis ACL rules (ElastiCache RBAC access strings use them): on, keys under the prefix only,
 * reads, writes, scripts and the connection commands (AUTH, PING, QUIT), nothing dangerous
 * (FLUSHALL, KEYS, DEBUG, CONFIG ...).
 */
export const ACCESS_STRING = 'on ~{lab}:* -@all +@read +@write +@scripting +@connection -@dangerous';

/**
 * The id (and name: IAM auth wants them equal) of the ElastiCache user the functions connect as,
 * from the data stack's name: user ids are unique in an account's region, so two labs must not
 * share one. Lower-case letters, digits and single hyphens, starting with a letter, at most 40.
 */
export function valkeyUserId(stackName: string): string {
  const base = stackName
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^[^a-z]+/, '');
  return `${base.slice(0, 32).replace(/-+$/, '')}-fns`;
}
