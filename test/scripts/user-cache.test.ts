/**
 * scripts/lib/user-cache.sh decides where PostgreSQL 16, DynamoDB Local and the conformance venv
 * are kept (once per user, so a fresh clone fetches nothing) and swaps each clone's path for a
 * link to it. Checked here on its own, and through the two fetch scripts with the install already
 * in a temporary user cache: no Maven, pip or npm run in this file.
 */
import { spawnSync } from 'node:child_process';
import {
  chmodSync,
  cpSync,
  existsSync,
  lstatSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  readlinkSync,
  rmSync,
  statSync,
  utimesSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { PROJECT_ROOT } from '../../core/paths';

const HELPER = join(PROJECT_ROOT, 'scripts/lib/user-cache.sh');

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'lab-user-cache-'));
});
afterEach(() => {
  rmSync(dir, { recursive: true, force: true });
});

/** The environment with only the variables the helper reads set as given. */
function env(vars: Record<string, string>): NodeJS.ProcessEnv {
  const { LAB_CACHE_HOME: _l, XDG_CACHE_HOME: _x, HOME: _h, ...rest } = process.env;
  return { ...rest, ...vars };
}

/** Runs `source helper; <script>` in bash. */
function helper(script: string, vars: Record<string, string>) {
  const r = spawnSync('bash', ['-c', `set -euo pipefail; source "${HELPER}"; ${script}`], {
    env: env(vars),
    encoding: 'utf8',
  });
  return { status: r.status, stdout: r.stdout.trim(), stderr: r.stderr.trim() };
}

describe('lab_cache_home', () => {
  it('is LAB_CACHE_HOME, else XDG_CACHE_HOME/serverless-db-latency-lab, else ~/.cache/serverless-db-latency-lab', () => {
    const home = join(dir, 'home');
    const all = { HOME: home, XDG_CACHE_HOME: join(dir, 'xdg'), LAB_CACHE_HOME: join(dir, 'lab') };
    expect(helper('lab_cache_home', all).stdout).toBe(join(dir, 'lab'));
    expect(helper('lab_cache_home', { HOME: home, XDG_CACHE_HOME: join(dir, 'xdg') }).stdout).toBe(
      join(dir, 'xdg', 'serverless-db-latency-lab'),
    );
    expect(helper('lab_cache_home', { HOME: home }).stdout).toBe(
      join(home, '.cache', 'serverless-db-latency-lab'),
    );
    // Resolving creates nothing.
    expect(readdirSync(dir)).toEqual([]);
  });
});

describe('lab_install_root', () => {
  it('creates and answers the user cache when it can be written, leaving no probe behind', () => {
    const project = join(dir, 'clone');
    const r = helper(`lab_install_root test "${project}"`, { HOME: join(dir, 'home') });
    const home = join(dir, 'home', '.cache', 'serverless-db-latency-lab');
    expect(r).toEqual({ status: 0, stdout: home, stderr: '' });
    expect(readdirSync(home)).toEqual([]);
    expect(existsSync(project)).toBe(false);
  });

  it("falls back to the clone's .cache/installs with one line when the user cache cannot be written", () => {
    // A path under a regular file cannot be created, even by root (a read-only mode would not stop root).
    writeFileSync(join(dir, 'file'), '');
    const project = join(dir, 'clone');
    const r = helper(`lab_install_root fetch-test "${project}"`, {
      HOME: join(dir, 'home'),
      LAB_CACHE_HOME: join(dir, 'file', 'lab'),
    });
    expect(r.status).toBe(0);
    expect(r.stdout).toBe(join(project, '.cache', 'installs'));
    expect(r.stderr.split('\n')).toEqual([
      `fetch-test: cannot write the user cache ${join(dir, 'file', 'lab')}: installing into ${project}/.cache/installs (this clone only)`,
    ]);
    expect(existsSync(join(project, '.cache', 'installs'))).toBe(true);
  });
});

describe('lab_staging', () => {
  it("makes a staging folder after removing a killed run's stale ones, keeping a running fetch's", () => {
    const installs = join(dir, 'installs');
    mkdirSync(join(installs, '.staging.killed', 'bin'), { recursive: true });
    mkdirSync(join(installs, '.staging.running'));
    mkdirSync(join(installs, 'postgres'));
    // Three hours untouched: a fetch that was SIGKILLed, whose EXIT trap never ran.
    const old = new Date(Date.now() - 3 * 3600_000);
    utimesSync(join(installs, '.staging.killed'), old, old);
    utimesSync(join(installs, 'postgres'), old, old);
    const r = helper(`lab_staging "${installs}"`, {});
    expect(r.status).toBe(0);
    expect(r.stdout).toMatch(new RegExp(`^${installs}/\\.staging\\.\\w{6}$`));
    expect(readdirSync(installs).sort()).toEqual(
      ['.staging.running', 'postgres', r.stdout.slice(installs.length + 1)].sort(),
    );
  });
});

describe('lab_link', () => {
  function install(name: string): string {
    const target = join(dir, 'cache', name);
    mkdirSync(join(target, 'bin'), { recursive: true });
    writeFileSync(join(target, 'bin', 'marker'), name);
    return target;
  }

  it('links a fresh path, then moves the link to a new install', () => {
    const link = join(dir, 'clone', '.cache', 'postgres-16');
    const first = install('v1');
    expect(helper(`lab_link "${first}" "${link}"`, {}).status).toBe(0);
    expect(readlinkSync(link)).toBe(first);
    const second = install('v2');
    expect(helper(`lab_link "${second}" "${link}"`, {}).status).toBe(0);
    expect(readlinkSync(link)).toBe(second);
    expect(readFileSync(join(link, 'bin', 'marker'), 'utf8')).toBe('v2');
    expect(readdirSync(join(dir, 'clone', '.cache'))).toEqual(['postgres-16']);
  });

  it("replaces an older clone's real folder with the link, leaving nothing beside it", () => {
    const link = join(dir, 'clone', '.cache', 'postgres-16');
    mkdirSync(join(link, 'bin'), { recursive: true });
    writeFileSync(join(link, 'bin', 'marker'), 'old layout');
    const target = install('v1');
    expect(helper(`lab_link "${target}" "${link}"`, {}).status).toBe(0);
    expect(lstatSync(link).isSymbolicLink()).toBe(true);
    expect(readFileSync(join(link, 'bin', 'marker'), 'utf8')).toBe('v1');
    expect(readdirSync(join(dir, 'clone', '.cache'))).toEqual(['postgres-16']);
  });

  it('leaves the real folder as it is while the install is missing', () => {
    const link = join(dir, 'clone', '.cache', 'postgres-16');
    mkdirSync(link, { recursive: true });
    writeFileSync(join(link, 'marker'), 'old layout');
    const r = helper(`lab_link "${join(dir, 'cache', 'missing')}" "${link}"`, {});
    expect(r.status).not.toBe(0);
    expect(r.stderr).toContain('is not an install');
    expect(lstatSync(link).isDirectory()).toBe(true);
    expect(readFileSync(join(link, 'marker'), 'utf8')).toBe('old layout');
  });
});

describe('lab_copy', () => {
  it('puts a folder of its own at the path, hard links of the install, over a link; a second run keeps it', () => {
    const target = join(dir, 'cache', 'v1');
    mkdirSync(join(target, 'bin'), { recursive: true });
    writeFileSync(join(target, 'bin', 'postgres'), 'v1');
    const path = join(dir, 'clone', '.cache', 'postgres-16');
    expect(helper(`lab_link "${target}" "${path}"`, {}).status).toBe(0);
    expect(helper(`lab_copy "${target}" "${path}"`, {})).toEqual({ status: 0, stdout: '', stderr: '' });
    expect(lstatSync(path).isDirectory()).toBe(true);
    expect(statSync(join(path, 'bin', 'postgres')).ino).toBe(statSync(join(target, 'bin', 'postgres')).ino);
    expect(readFileSync(join(path, '.source'), 'utf8')).toBe(`${target}\n`);
    expect((statSync(path).mode & 0o777).toString(8)).toBe('755');
    const inode = statSync(path).ino;
    expect(helper(`lab_copy "${target}" "${path}"`, {}).status).toBe(0);
    expect(statSync(path).ino).toBe(inode);
    expect(readdirSync(join(dir, 'clone', '.cache'))).toEqual(['postgres-16']);
  });

  it('replaces a copy of another install', () => {
    const path = join(dir, 'clone', '.cache', 'postgres-16');
    for (const v of ['v1', 'v2']) {
      mkdirSync(join(dir, 'cache', v), { recursive: true });
      writeFileSync(join(dir, 'cache', v, 'marker'), v);
      expect(helper(`lab_copy "${join(dir, 'cache', v)}" "${path}"`, {}).status).toBe(0);
    }
    expect(readFileSync(join(path, 'marker'), 'utf8')).toBe('v2');
    expect(readdirSync(join(dir, 'clone', '.cache'))).toEqual(['postgres-16']);
  });
});

describe('the fetch scripts with the install already in the user cache', () => {
  /** A clone with just the script, the helper and what the script reads. */
  function clone(name: string, files: string[]): string {
    const root = join(dir, name);
    for (const f of ['scripts/lib/user-cache.sh', ...files])
      cpSync(join(PROJECT_ROOT, f), join(root, f), { recursive: true });
    return root;
  }
  function run(root: string, script: string, cache: string, extra: Record<string, string> = {}) {
    return spawnSync('bash', [join(root, script)], {
      env: env({ HOME: join(dir, 'home'), LAB_CACHE_HOME: cache, ...extra }),
      encoding: 'utf8',
    });
  }
  /** The package version and platform fetch-postgres.sh installs under. */
  function postgresInstall(): string {
    const version = /^PG16_PACKAGE_VERSION=(\S+)$/m.exec(
      readFileSync(join(PROJECT_ROOT, 'scripts/fetch-postgres.sh'), 'utf8'),
    )?.[1];
    const platform = ['linux-x64', 'linux-arm64', 'darwin-arm64', 'darwin-x64'].find(
      (p) => p === `${process.platform}-${process.arch}`,
    );
    expect(version).toBeDefined();
    expect(platform).toBeDefined();
    return `${version}-${platform}`;
  }
  /** A stand-in postgres in the user cache: the script runs `postgres --version` to accept an install. */
  function standInPostgres(cache: string): string {
    const installed = join(cache, 'postgres', postgresInstall());
    mkdirSync(join(installed, 'bin'), { recursive: true });
    writeFileSync(join(installed, 'bin', 'postgres'), '#!/bin/sh\necho "postgres (PostgreSQL) 16.99"\n', {
      mode: 0o755,
    });
    return installed;
  }

  it('fetch-postgres.sh links .cache/postgres-16 in each fresh clone and an older layout, fetching nothing', () => {
    const version = /^PG16_PACKAGE_VERSION=(\S+)$/m.exec(
      readFileSync(join(PROJECT_ROOT, 'scripts/fetch-postgres.sh'), 'utf8'),
    )?.[1];
    // The script's platform names are Node's platform-arch.
    const platform = ['linux-x64', 'linux-arm64', 'darwin-arm64', 'darwin-x64'].find(
      (p) => p === `${process.platform}-${process.arch}`,
    );
    expect(version).toBeDefined();
    expect(platform).toBeDefined();
    // Reachable by every user: as root the script checks that the user postgres can run it.
    chmodSync(dir, 0o755);
    const cache = join(dir, 'user-cache');
    const installed = join(cache, 'postgres', `${version}-${platform}`);
    // A stand-in postgres: the script runs `postgres --version` to accept an install.
    mkdirSync(join(installed, 'bin'), { recursive: true });
    writeFileSync(join(installed, 'bin', 'postgres'), '#!/bin/sh\necho "postgres (PostgreSQL) 16.99"\n', {
      mode: 0o755,
    });
    const a = clone('a', ['scripts/fetch-postgres.sh']);
    const b = clone('b', ['scripts/fetch-postgres.sh']);
    mkdirSync(join(b, '.cache', 'postgres-16', 'bin'), { recursive: true }); // an older clone's folder
    for (const root of [a, b]) {
      const r = run(root, 'scripts/fetch-postgres.sh', cache);
      expect(r.stderr).toBe('');
      expect(r.status).toBe(0);
      expect(r.stdout).not.toContain('fetching');
      expect(r.stdout).toContain('16.99');
      expect(readlinkSync(join(root, '.cache', 'postgres-16'))).toBe(installed);
    }
    expect(readdirSync(join(cache, 'postgres'))).toEqual([`${version}-${platform}`]);
  });

  it('fetch-postgres.sh in a clone under a mode-0700 folder: as root, a link to a shared copy the user postgres can run', () => {
    chmodSync(dir, 0o755);
    // As /root is: a home other users cannot enter, holding the user cache.
    const home = join(dir, 'home');
    mkdirSync(home, { mode: 0o700 });
    const cache = join(home, 'user-cache');
    const installed = standInPostgres(cache);
    // As `mktemp -d` makes it: mode 0700, the clone inside.
    const closed = join(dir, 'closed');
    mkdirSync(closed, { mode: 0o700 });
    const root = join(closed, 'lab');
    for (const f of ['scripts/lib/user-cache.sh', 'scripts/fetch-postgres.sh'])
      cpSync(join(PROJECT_ROOT, f), join(root, f), { recursive: true });
    const engines = join(dir, 'engines');
    const r = run(root, 'scripts/fetch-postgres.sh', cache, { LAB_ENGINE_HOME: engines });
    expect(r.stderr).toBe('');
    expect(r.status).toBe(0);
    const link = join(root, '.cache', 'postgres-16');
    if (process.getuid?.() === 0) {
      // PostgreSQL runs as the user postgres, which reaches neither the user cache nor the clone.
      const shared = join(engines, 'postgres', postgresInstall());
      expect(readlinkSync(link)).toBe(shared);
      expect(statSync(engines).mode & 0o777).toBe(0o755);
      const asPostgres = spawnSync(
        'setpriv',
        [
          '--reuid=postgres',
          '--regid=postgres',
          '--init-groups',
          '--',
          join(shared, 'bin', 'postgres'),
          '--version',
        ],
        { encoding: 'utf8' },
      );
      expect(asPostgres.stdout.trim()).toBe('postgres (PostgreSQL) 16.99');
    } else {
      // Not root: PostgreSQL runs as this user, who reaches the user cache itself.
      expect(readlinkSync(link)).toBe(installed);
    }
  });

  it('fetch-dynamodb-local.sh links .cache/dynamodb-local/<version> to a complete install, no Maven', () => {
    const pom = 'targets/dynamodb/dynamodb-local/pom.xml';
    const version = /<dynamodb-local\.version>([^<]+)</.exec(
      readFileSync(join(PROJECT_ROOT, pom), 'utf8'),
    )?.[1];
    expect(version).toBeDefined();
    const cache = join(dir, 'user-cache');
    const installed = join(cache, 'dynamodb-local', `${version}`);
    mkdirSync(join(installed, 'lib'), { recursive: true });
    writeFileSync(join(installed, '.complete'), `${version}\n`);
    const root = clone('a', ['scripts/fetch-dynamodb-local.sh', pom]);
    const r = run(root, 'scripts/fetch-dynamodb-local.sh', cache);
    expect(r.stderr).toBe('');
    expect(r.status).toBe(0);
    expect(r.stdout).toBe(`fetch-dynamodb-local: DynamoDB Local ${version} is already in ${installed}\n`);
    expect(readlinkSync(join(root, '.cache', 'dynamodb-local', `${version}`))).toBe(installed);
  });
});
