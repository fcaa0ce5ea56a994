/**
 * The aurorapg target's own context flags, parsed and checked here (lib/config.ts hands every
 * target the context as AppConfig.context). Light: no construct library, so the local lab and
 * the tests read the same rules.
 *
 * - auroraPgMode: `direct` (functions connect to the writer, minimum capacity 0 by default so the
 *   instance auto-pauses) or `proxy` (through RDS Proxy).
 * - auroraPgMinAcu / auroraPgMaxAcu: the Serverless v2 capacity range, in half-ACU steps.
 * - auroraPgAutoPauseS: SecondsUntilAutoPause, 300 to 86,400 (only with a minimum of 0).
 *
 * Sources:
 * - Scaling to zero (minimum 0 ACUs, auto-pause, its limits):
 *   https://docs.aws.amazon.com/AmazonRDS/latest/AuroraUserGuide/aurora-serverless-v2-auto-pause.html
 * - The capacity range and SecondsUntilAutoPause's bounds:
 *   https://docs.aws.amazon.com/AmazonRDS/latest/APIReference/API_ServerlessV2ScalingConfiguration.html
 */
import { ConfigError, type ContextReader } from '../../lib/config';

/** The cluster's master user (its generated secret's username). */
export const MASTER_USER = 'labadmin';
/** The whole call's deadline in the functions: room for a resume, under API Gateway's 29 s integration timeout. */
export const DEADLINE_MS = 25_000;

export const AURORA_MODES = ['direct', 'proxy'] as const;
export type AuroraMode = (typeof AURORA_MODES)[number];

export const AUTO_PAUSE_PAGE =
  'https://docs.aws.amazon.com/AmazonRDS/latest/AuroraUserGuide/aurora-serverless-v2-auto-pause.html';

/** SecondsUntilAutoPause's documented range and default. */
export const AUTO_PAUSE_S = { min: 300, max: 86_400, default: 300 } as const;
/** The capacity range's documented bounds: 0 with auto-pause, 256 at most, half-ACU steps. */
export const ACU_LIMITS = { min: 0, max: 256 } as const;
/** The lowest running capacity: a minimum of 0 means paused or at least this. */
export const LOWEST_RUNNING_ACU = 0.5;

export interface AuroraSettings {
  readonly mode: AuroraMode;
  readonly minAcu: number;
  readonly maxAcu: number;
  /** Only when minAcu is 0: idle this long, the instance pauses. */
  readonly autoPauseS?: number;
}

const blank = (v: unknown) => v === undefined || v === null || String(v).trim() === '';

function acu(read: ContextReader, flag: string, fallback: number): number {
  const value = read(flag);
  if (blank(value)) return fallback;
  const n = Number(String(value).trim());
  if (!(Number.isFinite(n) && n >= ACU_LIMITS.min && n <= ACU_LIMITS.max && Number.isInteger(n * 2)))
    throw new ConfigError(flag, value, `ACUs from ${ACU_LIMITS.min} to ${ACU_LIMITS.max} in steps of 0.5`);
  return n;
}

/** The flags, checked; a combination AWS refuses fails here, naming the flag. */
export function parseAuroraSettings(read: ContextReader = () => undefined): AuroraSettings {
  const modeValue = read('auroraPgMode');
  const mode = blank(modeValue) ? 'direct' : String(modeValue).trim();
  if (!(AURORA_MODES as readonly string[]).includes(mode))
    throw new ConfigError('auroraPgMode', modeValue, AURORA_MODES.join(' or '));
  const minAcu = acu(read, 'auroraPgMinAcu', mode === 'direct' ? 0 : LOWEST_RUNNING_ACU);
  const maxAcu = acu(read, 'auroraPgMaxAcu', 1);
  if (mode === 'proxy' && minAcu === 0)
    throw new ConfigError(
      'auroraPgMinAcu',
      read('auroraPgMinAcu'),
      `at least ${LOWEST_RUNNING_ACU} with auroraPgMode=proxy: an instance with a minimum capacity of 0 ACUs cannot auto-pause while RDS Proxy keeps connections open to it, and AWS does not allow a proxy with a minimum of 0 (${AUTO_PAUSE_PAGE}, Prerequisites and limitations)`,
    );
  if (!(maxAcu > LOWEST_RUNNING_ACU - 1e-9 && maxAcu >= minAcu && maxAcu >= 1))
    throw new ConfigError(
      'auroraPgMaxAcu',
      read('auroraPgMaxAcu'),
      `at least 1 and at least auroraPgMinAcu (${minAcu})`,
    );
  const pauseValue = read('auroraPgAutoPauseS');
  if (minAcu > 0) {
    if (!blank(pauseValue))
      throw new ConfigError(
        'auroraPgAutoPauseS',
        pauseValue,
        'no value unless auroraPgMinAcu=0 (only a minimum of 0 pauses)',
      );
    return { mode: mode as AuroraMode, minAcu, maxAcu };
  }
  let autoPauseS: number = AUTO_PAUSE_S.default;
  if (!blank(pauseValue)) {
    autoPauseS = Number(String(pauseValue).trim());
    if (!(Number.isInteger(autoPauseS) && autoPauseS >= AUTO_PAUSE_S.min && autoPauseS <= AUTO_PAUSE_S.max))
      throw new ConfigError(
        'auroraPgAutoPauseS',
        pauseValue,
        `whole seconds from ${AUTO_PAUSE_S.min} to ${AUTO_PAUSE_S.max} (SecondsUntilAutoPause)`,
      );
  }
  return { mode: mode as AuroraMode, minAcu, maxAcu, autoPauseS };
}
