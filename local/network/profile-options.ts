/**
 * From options to the profile a lab runs: a named profile (local/network/profiles.ts) with
 * round-trip overrides for every target or some. Light: the CLIs check options with it.
 */
import { isTarget, TARGETS, type Target } from '../../core/lab-functions';
import { DEFAULT_PROFILE, findProfile, type NetworkProfile, PROFILE_NAMES, withRtt } from './profiles';

export interface ProfileChoice {
  /** @default DEFAULT_PROFILE */
  readonly profile?: string;
  /** Every target's round trip, ms. */
  readonly rttMs?: number;
  /** Some targets' round trips, ms, applied after rttMs. */
  readonly rttByTarget?: Readonly<Partial<Record<Target, number>>>;
}

/** The longest round trip --rtt and resolveProfile accept, ms (one check for both). */
const MAX_RTT_MS = 1000;
const isRtt = (n: number): boolean => Number.isFinite(n) && n >= 0 && n <= MAX_RTT_MS;

export function resolveProfile(choice: ProfileChoice): NetworkProfile {
  const name = choice.profile ?? DEFAULT_PROFILE;
  const profile = findProfile(name);
  if (!profile)
    throw new Error(`unknown network profile ${JSON.stringify(name)}; known: ${PROFILE_NAMES.join(', ')}`);
  for (const v of [choice.rttMs, ...Object.values(choice.rttByTarget ?? {})]) {
    if (v !== undefined && !isRtt(v))
      throw new RangeError(`a round trip must be 0..${MAX_RTT_MS} ms, got ${v}`);
  }
  const all =
    choice.rttMs === undefined ? {} : Object.fromEntries(TARGETS.map((t) => [t, choice.rttMs as number]));
  return withRtt(profile, { ...all, ...choice.rttByTarget });
}

/**
 * `--rtt`: `MS` for every target, or `target=MS,...` for some (`dynamodb=0.5,redis=0.3`).
 * Throws a message naming what is wrong; the CLIs turn it into a usage error.
 */
export function parseRtt(text: string): Pick<ProfileChoice, 'rttMs' | 'rttByTarget'> {
  const parts = text.split(',').map((p) => p.trim());
  const ms = (v: string): number => {
    const n = Number(v);
    if (v === '' || !isRtt(n))
      throw new Error(`--rtt: ${JSON.stringify(v)} is not a round trip of 0..${MAX_RTT_MS} ms`);
    return n;
  };
  if (parts.length === 1 && !parts[0].includes('=')) return { rttMs: ms(parts[0]) };
  const byTarget: Partial<Record<Target, number>> = {};
  for (const part of parts) {
    const [target, value, ...rest] = part.split('=');
    if (value === undefined || rest.length > 0 || !isTarget(target.trim()))
      throw new Error(
        `--rtt: ${JSON.stringify(part)} is not target=MS with a target of ${TARGETS.join(', ')}`,
      );
    byTarget[target.trim() as Target] = ms(value.trim());
  }
  return { rttByTarget: byTarget };
}

/** Checks `--profile` and `--rtt` the way the lab will read them, for a usage error before anything starts. */
export function profileOptions(
  profile: string | undefined,
  rtt: string | undefined,
): ProfileChoice & { readonly resolved: NetworkProfile } {
  const choice: ProfileChoice = { profile, ...(rtt === undefined ? {} : parseRtt(rtt)) };
  return { ...choice, resolved: resolveProfile(choice) };
}
