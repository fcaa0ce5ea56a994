/**
 * What the valkey client records per response for the cost model (store.ts writes, cost.ts
 * reads): light, so the module's index can load its cost part without the client.
 */

/** Commands metered (reads and writes; AUTH, HELLO, PING and QUIT are not). */
export const VALKEY_COMMANDS = 'valkey.commands';
/** Their bytes on the wire, request and reply as RESP. */
export const VALKEY_TRANSFER_BYTES = 'valkey.transferBytes';
/** The same bytes with each command counted as at least BYTES_PER_ECPU. */
export const VALKEY_ECPU_BYTES = 'valkey.ecpuBytes';

/**
 * The pricing page's rule for reads and writes: 1 ECPU per KB transferred, so a command that
 * moves less still bills one KB's worth (https://aws.amazon.com/elasticache/pricing/). cost.ts
 * divides by the same figure from prices.json; a test holds the two equal.
 */
export const BYTES_PER_ECPU = 1024;
