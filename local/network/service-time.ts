/**
 * A service's own time per operation, drawn from a seeded log-normal distribution fitted to a
 * published median and p99: what DynamoDB reports as SuccessfulRequestLatency, and its
 * equivalents. A distribution, not a constant, so that local p99s have tails as the cloud's
 * do; seeded, so that a run can be repeated.
 */
import { seededUniform } from '../../core/seeded-uniform.mjs';

/** The median and the 99th percentile a distribution is fitted to, ms. */
export interface ServiceTimeSpec {
  readonly p50Ms: number;
  readonly p99Ms: number;
}

/** The standard normal's 99th percentile: a log-normal's p99 is exp(mu + Z99 * sigma). */
export const Z99 = 2.3263478740408408;

/** Checks a spec: finite, p50 > 0 and p99 >= p50. */
export function checkServiceTime(spec: ServiceTimeSpec): void {
  const { p50Ms, p99Ms } = spec;
  if (!(Number.isFinite(p50Ms) && Number.isFinite(p99Ms) && p50Ms > 0 && p99Ms >= p50Ms)) {
    throw new RangeError(`service time needs 0 < p50 <= p99, got p50 ${p50Ms} ms, p99 ${p99Ms} ms`);
  }
}

/** A seed per stream name (a target), so each model draws its own, repeatable sequence. */
export function streamSeed(seed: number, name: string): number {
  let h = (seed ^ 0x9e3779b9) >>> 0;
  for (let i = 0; i < name.length; i++) h = Math.imul(h ^ name.charCodeAt(i), 0x01000193) >>> 0;
  return h;
}

/** A sampler of the log-normal with this median and p99, ms. */
export function serviceTimeSampler(spec: ServiceTimeSpec, seed: number): () => number {
  checkServiceTime(spec);
  const mu = Math.log(spec.p50Ms);
  const sigma = Math.log(spec.p99Ms / spec.p50Ms) / Z99;
  const uniform = seededUniform(seed);
  let spare: number | undefined;
  // Box-Muller gives two normals per pair of uniforms; keep the second for the next draw.
  const normal = (): number => {
    if (spare !== undefined) {
      const z = spare;
      spare = undefined;
      return z;
    }
    const u1 = 1 - uniform(); // (0, 1]: log(0) never happens
    const u2 = uniform();
    const r = Math.sqrt(-2 * Math.log(u1));
    spare = r * Math.sin(2 * Math.PI * u2);
    return r * Math.cos(2 * Math.PI * u2);
  };
  return () => Math.exp(mu + sigma * normal());
}
