/**
 * Is a target's engine here, and if not, what one command adds it? Each target's local folder
 * answers with an EngineCheck (local/targets/*.ts `findEngine`); the CLIs run what is found
 * and name what is missing. Lookups honour the PATH they are given, so a test can hide an
 * engine without uninstalling it.
 */
import { accessSync, constants, statSync } from 'node:fs';
import { delimiter, join } from 'node:path';

export interface EngineFound {
  readonly found: true;
  /** Where the engine comes from, for the start line and docs/local-lab.md: `dynalite (npm)`, `/usr/bin/redis-server`. */
  readonly source: string;
}

export interface EngineMissing {
  readonly found: false;
  /** What is missing, e.g. `redis-server is not on PATH`. */
  readonly missing: string;
  /** The one command that adds it, e.g. `sudo apt-get install redis-server`. */
  readonly install: string;
}

export type EngineCheck = EngineFound | EngineMissing;

/** What a lookup may read: the environment (PATH, overrides) and the platform. */
export interface FindEngineContext {
  readonly env: NodeJS.ProcessEnv;
  readonly platform: NodeJS.Platform;
  /** Progress lines, e.g. a download that takes seconds. */
  readonly log?: (line: string) => void;
}

export const defaultFindContext = (): FindEngineContext => ({ env: process.env, platform: process.platform });

export function isExecutable(path: string): boolean {
  try {
    if (!statSync(path).isFile()) return false;
    accessSync(path, constants.X_OK);
    return true;
  } catch {
    return false;
  }
}

/** The first executable `name` on PATH, as a shell would find it; undefined when there is none. */
export function findOnPath(name: string, path: string | undefined): string | undefined {
  for (const dir of (path ?? '').split(delimiter)) {
    if (dir === '') continue;
    const candidate = join(dir, name);
    if (isExecutable(candidate)) return candidate;
  }
  return undefined;
}

/** How a system package is named by each package manager the lab knows. */
export interface SystemPackage {
  /** Debian and Ubuntu. */
  readonly apt: string;
  /** Homebrew (macOS). */
  readonly brew: string;
  /** Fedora, RHEL. */
  readonly dnf: string;
}

/** The one command that installs a system package here: brew on macOS, apt-get or dnf on Linux. */
export function installCommand(pkg: SystemPackage, ctx: FindEngineContext): string {
  if (ctx.platform === 'darwin') return `brew install ${pkg.brew}`;
  if (ctx.platform === 'linux' && !findOnPath('apt-get', ctx.env.PATH) && findOnPath('dnf', ctx.env.PATH))
    return `sudo dnf install ${pkg.dnf}`;
  // Debian and Ubuntu, and the default elsewhere on Linux: docs/local-lab.md names the others.
  return `sudo apt-get install ${pkg.apt}`;
}

/** The one line a run prints for a target it leaves out. */
export function skippedLine(target: string, m: EngineMissing): string {
  return `${target}: skipped, ${m.missing}; add it with: ${m.install}`;
}
