/**
 * Which targets a local run starts: without --targets every target whose engine is here, one
 * line for each that is not (what is missing, the command that adds it); with --targets exactly
 * those, or a usage error (exit 2, nothing started). Engines are hidden by the PATH a lookup
 * gets, never uninstalled.
 */
import { spawnSync } from 'node:child_process';
import { chmodSync, existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { UsageError } from '../../core/errors';
import { PROJECT_ROOT } from '../../core/paths';
import { skippedLine } from '../../local/engines/find-engine';
import { chooseTargets, skippedLines } from '../../local/targets/choose-targets';

const dir = mkdtempSync(join(tmpdir(), 'lab-choose-targets-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** A PATH folder with nothing in it: no redis-server, no apt-get, no dnf. */
const emptyBin = join(dir, 'empty');
mkdirSync(emptyBin);
/** A PATH folder with an executable called redis-server (never run here: lookups start nothing). */
const fakeBin = join(dir, 'fake');
mkdirSync(fakeBin);
writeFileSync(join(fakeBin, 'redis-server'), '#!/bin/sh\nexit 0\n');
chmodSync(join(fakeBin, 'redis-server'), 0o755);
/** A PATH folder where dnf is the package manager. */
const dnfBin = join(dir, 'dnf');
mkdirSync(dnfBin);
writeFileSync(join(dnfBin, 'dnf'), '#!/bin/sh\nexit 0\n');
chmodSync(join(dnfBin, 'dnf'), 0o755);

// dsql's lookup may fetch PostgreSQL: these cases pick among the other three.
const ALL = ['dynamodb', 'qldb', 'redis'] as const;

describe('chooseTargets', () => {
  it('without --targets runs every target whose engine is here and names redis skipped with the command', async () => {
    const chosen = await chooseTargets({ env: { PATH: emptyBin }, platform: 'linux', all: ALL });
    expect(chosen.targets).toEqual(['dynamodb', 'qldb']);
    expect(chosen.found.get('dynamodb')?.source).toContain('dynalite');
    expect(skippedLines(chosen)).toEqual([
      'redis: skipped, redis-server is not on PATH; add it with: sudo apt-get install redis-server',
    ]);
  });

  it('runs redis when redis-server is on PATH, from where it was found', async () => {
    const chosen = await chooseTargets({
      env: { PATH: `${emptyBin}:${fakeBin}` },
      platform: 'linux',
      all: ALL,
    });
    expect(chosen.targets).toEqual(['dynamodb', 'qldb', 'redis']);
    expect(chosen.found.get('redis')?.source).toBe(join(fakeBin, 'redis-server'));
    expect(chosen.skipped).toEqual([]);
  });

  it('names the package manager of the platform: brew on macOS, dnf where apt-get is absent', async () => {
    const mac = await chooseTargets({ env: { PATH: emptyBin }, platform: 'darwin', all: ALL });
    expect(mac.skipped[0]?.missing.install).toBe('brew install redis');
    const fedora = await chooseTargets({ env: { PATH: dnfBin }, platform: 'linux', all: ALL });
    expect(fedora.skipped[0]?.missing.install).toBe('sudo dnf install redis');
  });

  it('LAB_REDIS_SERVER picks the binary, and one that is not executable is named as missing', async () => {
    const good = await chooseTargets({
      env: { PATH: emptyBin, LAB_REDIS_SERVER: join(fakeBin, 'redis-server') },
      platform: 'linux',
      requested: ['redis'],
    });
    expect(good.targets).toEqual(['redis']);
    const bad = await chooseTargets({
      env: { PATH: fakeBin, LAB_REDIS_SERVER: join(dir, 'no-such-file') },
      platform: 'linux',
      all: ALL,
    });
    expect(bad.skipped.map((s) => s.target)).toEqual(['redis']);
    expect(bad.skipped[0]?.missing.missing).toBe(
      `LAB_REDIS_SERVER=${join(dir, 'no-such-file')} is not an executable file`,
    );
  });

  it('with --targets runs exactly those, and refuses a named target whose engine is missing', async () => {
    const some = await chooseTargets({ env: { PATH: emptyBin }, platform: 'linux', requested: ['qldb'] });
    expect(some.targets).toEqual(['qldb']);
    const refused = chooseTargets({
      env: { PATH: emptyBin },
      platform: 'linux',
      requested: ['dynamodb', 'redis'],
    });
    await expect(refused).rejects.toBeInstanceOf(UsageError);
    await expect(refused).rejects.toThrow(
      '--targets dynamodb,redis: redis: redis-server is not on PATH; add it with: sudo apt-get install redis-server',
    );
  });

  it('asks each target its own lookup, so a registered target answers for itself', async () => {
    const registry = {
      dynamodb: { findEngine: () => ({ found: true as const, source: 'test' }) },
      qldb: { findEngine: () => ({ found: false as const, missing: 'no ledger', install: 'make ledger' }) },
      redis: { findEngine: async () => ({ found: true as const, source: 'test' }) },
      dsql: { findEngine: () => ({ found: true as const, source: 'test' }) },
      valkey: { findEngine: () => ({ found: true as const, source: 'test' }) },
      aurorapg: { findEngine: () => ({ found: true as const, source: 'test' }) },
    };
    const chosen = await chooseTargets({
      env: {},
      platform: 'linux',
      registry: (t) => registry[t as keyof typeof registry],
    });
    expect(chosen.targets).toEqual(['dynamodb', 'redis', 'dsql', 'valkey', 'aurorapg']);
    expect(skippedLines(chosen)).toEqual([
      skippedLine('qldb', { found: false, missing: 'no ledger', install: 'make ledger' }),
    ]);
  });
});

describe('npm run local and npm run experiment --targets with an engine missing', () => {
  for (const [name, script, args] of [
    ['local', 'local/cli/local.ts', ['--port', '0']],
    ['experiment', 'experiments/cli.ts', ['redis-vs-others', '--quick']],
  ] as const) {
    it(`${name}: exit 2 with the line naming what is missing, nothing started`, () => {
      const r = spawnSync(
        process.execPath,
        [
          '--import',
          'tsx',
          '--import',
          './targets/load-env.ts',
          script,
          ...args,
          '--targets',
          'dynamodb,redis',
        ],
        {
          cwd: PROJECT_ROOT,
          encoding: 'utf8',
          env: { ...process.env, PATH: emptyBin, LAB_REDIS_SERVER: '' },
          timeout: 60_000,
        },
      );
      expect(r.status).toBe(2);
      expect(r.stderr.trim().split('\n')).toEqual([
        `${name}: --targets dynamodb,redis: redis: redis-server is not on PATH; add it with: sudo apt-get install redis-server`,
      ]);
      expect(r.stdout).not.toMatch(/Starting the lab|Synthesizing|Lab API|ready at/);
    });
  }
});

describe('npm run load --targets with an engine missing', () => {
  it('exits 2 with one line naming what is missing and the command, and starts nothing', () => {
    const out = join(dir, 'results');
    const r = spawnSync(
      process.execPath,
      ['--import', 'tsx', 'loadtest/load.ts', '--targets', 'redis', '--out', out],
      // A PATH without redis-server (node itself runs by its full path).
      { cwd: PROJECT_ROOT, encoding: 'utf8', env: { ...process.env, PATH: emptyBin, LAB_REDIS_SERVER: '' } },
    );
    expect(r.status).toBe(2);
    expect(r.stderr.trim().split('\n')).toEqual([
      'load: --targets redis: redis: redis-server is not on PATH; add it with: sudo apt-get install redis-server',
    ]);
    // Nothing started: no results folder, no synth, no engine.
    expect(existsSync(out)).toBe(false);
    expect(r.stdout).not.toMatch(/Synthesizing|Lab API|ready at/);
  });
});

describe('requestedTargets (what startLab starts)', () => {
  it('starts exactly the targets asked for: DynamoDB only when named, or when none is', async () => {
    const { localSynthContext, requestedTargets } = await import('../../local/lab');
    expect(requestedTargets({ targets: 'qldb' })).toEqual(['qldb']);
    expect(requestedTargets({ targets: 'redis, dsql,redis' })).toEqual(['redis', 'dsql']);
    expect(requestedTargets({})).toEqual(['dynamodb']);
    expect(localSynthContext({ targets: 'qldb' }).targets).toBe('qldb');
    expect(() => requestedTargets({ targets: 'qldb,faunadb' })).toThrow(
      'unknown target faunadb; known: dynamodb, qldb, redis, dsql',
    );
  });
});
