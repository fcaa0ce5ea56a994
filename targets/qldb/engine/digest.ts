/**
 * The QLDB commit digest, computed from what the engine received: the ion-hash of the
 * transaction id, then for each statement in order the ion-hash of its text dotted with each
 * parameter's ion-hash. The driver computes the same and QLDB refuses a commit whose digest differs.
 */
import { createHash } from 'node:crypto';
import { cryptoHasherProvider, makeHashReader } from 'ion-hash-js';
import { makeReader, makeTextWriter } from 'ion-js';

const HASH_SIZE = 32;

/** The ion-hash (SHA-256) of one Ion value, binary or text. */
export function ionHash(value: Uint8Array | string): Uint8Array {
  const reader = makeHashReader(makeReader(value), cryptoHasherProvider('sha256'));
  reader.next();
  reader.next();
  return reader.digest();
}

export function stringHash(text: string): Uint8Array {
  const writer = makeTextWriter();
  writer.writeString(text);
  writer.close();
  return ionHash(writer.getBytes());
}

/** QLDB orders two hashes by their signed bytes, last byte first. */
function compareHashes(a: Uint8Array, b: Uint8Array): number {
  for (let i = HASH_SIZE - 1; i >= 0; i--) {
    const diff = ((a[i] << 24) >> 24) - ((b[i] << 24) >> 24);
    if (diff !== 0) return diff;
  }
  return 0;
}

/** QLDB's "dot": the SHA-256 of the two hashes, the smaller first. */
export function dot(a: Uint8Array, b: Uint8Array): Uint8Array {
  const [first, second] = compareHashes(a, b) < 0 ? [a, b] : [b, a];
  return new Uint8Array(createHash('sha256').update(first).update(second).digest());
}

/** The digest after one more statement with its parameters' hashes. */
export function statementDigest(
  previous: Uint8Array,
  statement: string,
  parameterHashes: readonly Uint8Array[],
): Uint8Array {
  return dot(
    previous,
    parameterHashes.reduce((h, p) => dot(h, p), stringHash(statement)),
  );
}
