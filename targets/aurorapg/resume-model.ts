/**
 * Aurora Serverless v2's auto-pause, as the local stand-in charges it: with a minimum capacity of
 * 0 ACUs the instance pauses once it has had no connection for SecondsUntilAutoPause, and the
 * next connection request waits while it resumes: "approximately 15 seconds" after a pause of
 * less than 24 hours, longer ("30 seconds or longer") after one of more.
 * https://docs.aws.amazon.com/AmazonRDS/latest/AuroraUserGuide/aurora-serverless-v2-auto-pause.html
 * (How auto-pause works; Resuming). Every figure is configurable; the defaults are those.
 * Connections that arrive during a resume wait for the same one.
 */
export interface ResumeSettings {
  /** Idle (no connection) this long, the instance pauses; undefined: it never does (minimum > 0). */
  readonly autoPauseS?: number;
  /** @default DEFAULT_RESUME.shortMs */
  readonly shortMs?: number;
  /** @default DEFAULT_RESUME.longMs */
  readonly longMs?: number;
  /** A pause at least this long resumes in longMs. @default DEFAULT_RESUME.longAfterS */
  readonly longAfterS?: number;
  /** @default Date.now */
  readonly now?: () => number;
}

export const DEFAULT_RESUME = { shortMs: 15_000, longMs: 30_000, longAfterS: 86_400 } as const;

export interface Resume {
  /** How long this connection is held before the instance answers, ms (0: it was running). */
  readonly holdMs: number;
  /** How long the instance had been paused, ms (0: it was running). */
  readonly pausedMs: number;
}

export interface ResumeStats {
  readonly resumes: number;
  readonly heldMs: number;
}

export class ResumeModel {
  readonly #s: Required<Omit<ResumeSettings, 'autoPauseS'>> & { autoPauseS?: number };
  #open = 0;
  #idleSince: number;
  #resumedAt = 0;
  #resumes = 0;
  #heldMs = 0;

  constructor(settings: ResumeSettings = {}) {
    this.#s = {
      shortMs: settings.shortMs ?? DEFAULT_RESUME.shortMs,
      longMs: settings.longMs ?? DEFAULT_RESUME.longMs,
      longAfterS: settings.longAfterS ?? DEFAULT_RESUME.longAfterS,
      now: settings.now ?? Date.now,
      ...(settings.autoPauseS === undefined ? {} : { autoPauseS: settings.autoPauseS }),
    };
    this.#idleSince = this.#s.now();
  }

  get pauses(): boolean {
    return this.#s.autoPauseS !== undefined;
  }

  /** When the instance paused (ms since the epoch), or undefined while it runs or resumes. */
  pausedAt(): number | undefined {
    const { autoPauseS, now } = this.#s;
    if (autoPauseS === undefined || this.#open > 0) return undefined;
    const t = now();
    if (t < this.#resumedAt) return undefined;
    const at = this.#idleSince + autoPauseS * 1000;
    return t >= at ? at : undefined;
  }

  /** A connection request: the hold it pays. Call closed() when it ends. */
  opened(): Resume {
    const t = this.#s.now();
    const pausedAt = this.pausedAt();
    this.#open += 1;
    if (pausedAt !== undefined) {
      const pausedMs = t - pausedAt;
      const holdMs = pausedMs >= this.#s.longAfterS * 1000 ? this.#s.longMs : this.#s.shortMs;
      this.#resumedAt = t + holdMs;
      this.#resumes += 1;
      this.#heldMs += holdMs;
      return { holdMs, pausedMs };
    }
    // Arriving while a resume is under way: it waits for the same one.
    return { holdMs: Math.max(0, this.#resumedAt - t), pausedMs: 0 };
  }

  closed(): void {
    this.#open = Math.max(0, this.#open - 1);
    if (this.#open === 0) this.#idleSince = Math.max(this.#s.now(), this.#resumedAt);
  }

  stats(): ResumeStats {
    return { resumes: this.#resumes, heldMs: this.#heldMs };
  }
}
