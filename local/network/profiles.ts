/**
 * Named network profiles: per database target, the round trip between a function and the
 * service (charged per exchange below TLS by the delay layer) and the service's own time per
 * operation (a seeded distribution, applied per request/response exchange above TLS). The
 * client's CPU (TLS, SigV4, (de)serialization) is not here: the environments' CPU share
 * charges it. Every figure names its source. Plain data: a CLI's --help may import it.
 */
import type { Target } from '../../core/lab-functions';
import type { ServiceTimeSpec } from './service-time';

export interface Citation {
  /** What the source measured, in a few words, with its figures. */
  readonly what: string;
  /** A public page, when there is one. */
  readonly url?: string;
  /** A source article's seed file (its text is not in the repository; its figures are). */
  readonly seed?: string;
}

export interface TargetLink {
  /** Round trip per exchange, ms. */
  readonly rttMs: number;
  /** The service's own time per request/response exchange; null: the local engine's own time only. */
  readonly serviceTime: (ServiceTimeSpec & { readonly derivation: string }) | null;
  /** Where the figures come from. */
  readonly sources: readonly Citation[];
}

export interface NetworkProfile {
  readonly name: string;
  readonly description: string;
  /**
   * Links this profile sets itself, over the targets' own (withRtt's overrides); each target's
   * link comes from its module (registerTargetLinks), found by linkOf.
   */
  readonly targets: Readonly<Partial<Record<Target, TargetLink>>>;
}

/** A target's network link: one for every profile, or one per profile name. */
export interface TargetLinks {
  /** The link under any profile that names none of its own for this target. */
  readonly link: TargetLink;
  /** Links for named profiles (`uniform-8ms`, ...), where the target's figures differ. */
  readonly byProfile?: Readonly<Record<string, TargetLink>>;
}

const REGISTERED_LINKS = new Map<string, TargetLinks>();

/** A target module's network link (targets/registry.ts); a target registers one at most. */
export function registerTargetLinks(target: string, links: TargetLinks): void {
  if (REGISTERED_LINKS.has(target)) throw new Error(`target ${target} already has a network link`);
  REGISTERED_LINKS.set(target, links);
}

/**
 * The link the network model charges for `target` under `profile`: the profile's own entry,
 * else the one the target registered for this profile, else its link for every profile. A
 * target with none is an error that says so: the model never invents a round trip.
 */
export function linkOf(profile: NetworkProfile, target: string): TargetLink {
  const own = profile.targets[target];
  if (own) return own;
  const registered = REGISTERED_LINKS.get(target);
  const link = registered?.byProfile?.[profile.name] ?? registered?.link;
  if (!link)
    throw new Error(
      `network profile ${profile.name} has no link for target ${target}: its module registers one (docs/targets.md: Adding a database target)`,
    );
  return link;
}

/** Round trips between instances of one region (ping, averages of each AZ or AZ pair): the targets' links cite them. */
export const AZ_PING: Citation = {
  what: 'EC2 ping RTT in us-east-1: 0.26-0.41 ms within an AZ, 0.94-1.13 ms across AZs (averages, 2009)',
  url: 'https://orensol.com/2009/05/24/network-latency-inside-and-across-amazon-ec2-availability-zones/',
};
export const AZ_MAP: Citation = {
  what: 'best-of-50 pings between AZs of every region: 0.25 ms (aps1) to 3.37 ms (sae1)',
  url: 'https://xkyle.com/Measuring-AWS-Region-and-AZ-Latency',
};
/**
 * Each target's module gives its link under this profile. Where a service publishes only what a
 * client saw, its service time is derived: the published figure minus the round trip and the
 * client's own time measured on the lab with the service time off (see docs/local-lab.md,
 * "Network profiles").
 */
export const IN_REGION: NetworkProfile = {
  name: 'in-region',
  description:
    'a function and its database in one region: ~1 ms round trips (a mix of same-AZ and cross-AZ), the service time each service publishes',
  targets: {},
};

/**
 * The lab's first model: 8 ms per round trip everywhere, no service time of its own (each
 * target's module names UNIFORM_8MS_LINK for it).
 */
export const UNIFORM_8MS: NetworkProfile = {
  name: 'uniform-8ms',
  description:
    "the first model: every exchange pays 8 ms, standing for network, service and client together; reproduces the keep-alive article's 33 vs 10 ms at its ratio",
  targets: {},
};

/** Every target's link under uniform-8ms. */
export const UNIFORM_8MS_LINK: TargetLink = { rttMs: 8, serviceTime: null, sources: [] };

export const PROFILES: readonly NetworkProfile[] = [IN_REGION, UNIFORM_8MS];
export const DEFAULT_PROFILE = IN_REGION.name;
export const PROFILE_NAMES = PROFILES.map((p) => p.name);

export function findProfile(name: string): NetworkProfile | undefined {
  return PROFILES.find((p) => p.name === name);
}

/** A profile with per-target round-trip overrides (`--rtt dynamodb=0.5`). */
export function withRtt(
  profile: NetworkProfile,
  overrides: Readonly<Partial<Record<Target, number>>>,
): NetworkProfile {
  const entries = Object.entries(overrides) as [Target, number][];
  if (entries.length === 0) return profile;
  const targets = { ...profile.targets };
  for (const [t, rttMs] of entries) Object.assign(targets, { [t]: { ...linkOf(profile, t), rttMs } });
  return { ...profile, targets };
}

/** A target's link in words: `round trip R ms, service time p50 X / p99 Y ms (seeded log-normal)`, or the engine's own. */
export function describeLink(link: TargetLink): string {
  const st = link.serviceTime;
  return `round trip ${link.rttMs} ms, service time ${st ? `p50 ${st.p50Ms} / p99 ${st.p99Ms} ms (seeded log-normal)` : "the local engine's own"}`;
}
