/**
 * One seeded generator for the lab: the network model's service-time draws and the load
 * runner's record picks. Plain JavaScript, so Artillery's processor loads it without a loader.
 */

/**
 * mulberry32: a small, fast 32-bit generator; the same seed gives the same stream.
 * @param {number} seed
 * @returns {() => number} uniform in [0, 1)
 */
export function seededUniform(seed) {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}
