import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { PROJECT_ROOT } from '../../core/paths';

/** A line an engine, a network model or a custom resource wrote: its name in brackets first. */
const ENGINE_LINE = /^\[(dynalite|dynamodb-local|qldb|redis|postgres|network-model|Custom::[^\]]+)\]/m;

interface SummaryRow {
  target: string;
  keepAlive: string;
  phase: string;
  requests: number;
  errors: number;
  latencyMs: { p50: number; p95: number; p99: number; max: number } | null;
  dbMs: { p50: number; p99: number } | null;
  dbRequests: { p50: number; max: number } | null;
  newConnectionShare: number | null;
}

describe('npm run load, end to end on the local lab', () => {
  const out = mkdtempSync(join(tmpdir(), 'lab-load-'));
  afterAll(() => rmSync(out, { recursive: true, force: true }));

  it('runs every target x variant x phase with requests and no errors, and says what keep-alive is worth', () => {
    const r = spawnSync(
      process.execPath,
      [
        '--import',
        'tsx',
        'loadtest/load.ts',
        '--targets',
        'dynamodb,qldb,redis,dsql',
        '--duration',
        '3',
        '--rate',
        '4',
        // The ratio below is the protocols' round trips: the profile that charges 8 ms for each.
        '--profile',
        'uniform-8ms',
        '--out',
        out,
      ],
      { cwd: PROJECT_ROOT, encoding: 'utf8', timeout: 340_000 },
    );
    expect(r.status, `${r.stdout}\n${r.stderr}`).toBe(0);
    const summary = JSON.parse(readFileSync(join(out, 'summary.json'), 'utf8')) as {
      runs: SummaryRow[];
      comparison: { reads: { ranking: { target: string; ratio: number }[] } } | null;
    };
    // The run ends with the comparison: every target ranked for reads, the fastest at 1x.
    const ranking = summary.comparison?.reads.ranking ?? [];
    expect(ranking.map((x) => x.target).sort()).toEqual(['dsql', 'dynamodb', 'qldb', 'redis']);
    expect(ranking[0]?.ratio).toBe(1);
    expect(r.stdout).toMatch(
      /^Reads \(get\): fastest [\w ]+ \(keep-alive (on|off)\), [\d.]+ ms client p50; /m,
    );
    expect(r.stdout).toMatch(/^Writes \(create\): fastest /m);
    expect(summary.runs.map((x) => `${x.target}/${x.keepAlive}/${x.phase}`)).toEqual([
      'dynamodb/on/create',
      'dynamodb/on/get',
      'dynamodb/off/create',
      'dynamodb/off/get',
      'qldb/on/create',
      'qldb/on/get',
      'qldb/off/create',
      'qldb/off/get',
      'redis/on/create',
      'redis/on/get',
      'redis/off/create',
      'redis/off/get',
      'dsql/on/create',
      'dsql/on/get',
      'dsql/off/create',
      'dsql/off/get',
    ]);
    // Round trips per request, counted by the client: DynamoDB 1; QLDB start, execute(s), commit.
    const requests = (target: string, phase: string) =>
      summary.runs.filter((x) => x.target === target && x.phase === phase).map((x) => x.dbRequests?.p50);
    expect(requests('dynamodb', 'get')).toEqual([1, 1]);
    expect(requests('dynamodb', 'create')).toEqual([1, 1]);
    expect(requests('qldb', 'get')).toEqual([3, 3]);
    expect(requests('qldb', 'create')).toEqual([4, 4]);
    // Redis counts commands: one per call on a kept connection; AUTH + command + QUIT without.
    expect(requests('redis', 'get')).toEqual([1, 3]);
    expect(requests('redis', 'create')).toEqual([1, 3]);
    // PostgreSQL messages: Parse, Bind, Describe, Execute, Sync on a kept connection;
    // + SSLRequest, startup, token and Terminate without.
    expect(requests('dsql', 'get')).toEqual([5, 9]);
    const db = (target: string, keepAlive: string, phase: string) =>
      summary.runs.find((x) => x.target === target && x.keepAlive === keepAlive && x.phase === phase)?.dbMs
        ?.p50 ?? Number.NaN;
    // TCP, SSLRequest, TLS, startup and auth: several round trips more than a kept connection.
    expect(db('dsql', 'off', 'get') / db('dsql', 'on', 'get')).toBeGreaterThan(3);
    expect(r.stdout).toContain(
      "QLDB: emulated locally (service shut down 2025-07-31); figures show its protocol's round trips, not QLDB's storage",
    );
    for (const run of summary.runs) {
      expect(run.requests, JSON.stringify(run)).toBeGreaterThan(0);
      expect(run.errors, JSON.stringify(run)).toBe(0);
      expect(run.latencyMs?.p50).toBeGreaterThan(0);
      expect(run.dbMs?.p50).toBeGreaterThan(0);
    }
    // Without keep-alive every call opens a connection; with it, only each environment's first.
    const off = summary.runs.filter((x) => x.keepAlive === 'off');
    for (const x of off) expect(x.newConnectionShare).toBe(1);
    const on = summary.runs.filter((x) => x.keepAlive === 'on');
    for (const x of on) expect(x.newConnectionShare).toBeLessThan(1);
    for (const f of [
      'timings.jsonl',
      'lambda-logs.log',
      'artillery-dynamodb-keepalive-off-get.json',
      'report.html',
      'report.md',
      'report.json',
    ]) {
      expect(existsSync(join(out, f)), f).toBe(true);
    }
    // The terminal shows the lab's lines only: what the engines, their network models and the
    // custom resources wrote is in engine-logs.log (PostgreSQL's own lines included), none of it
    // on stdout or stderr.
    const terminal = `${r.stdout}\n${r.stderr}`;
    const engineLines = readFileSync(join(out, 'engine-logs.log'), 'utf8').split('\n').filter(Boolean);
    for (const ready of [
      '[dynalite] ready at',
      '[redis] ready at',
      '[qldb] ready at',
      '[postgres] PostgreSQL 16',
    ])
      expect(
        engineLines.some((l) => l.startsWith(ready)),
        ready,
      ).toBe(true);
    expect(terminal).not.toMatch(ENGINE_LINE);
    const shown = new Set(terminal.split('\n'));
    expect(engineLines.filter((l) => shown.has(l))).toEqual([]);
    const logs = readFileSync(join(out, 'lambda-logs.log'), 'utf8');
    expect(logs).toMatch(/REPORT RequestId: \S+\tDuration: /);
    // Every environment runs Lambda's Node major and says so as Lambda does.
    const environments = logs.split('\n').filter((l) => l.includes('INIT_START'));
    expect(environments.length).toBeGreaterThanOrEqual(16);
    for (const l of environments) expect(l).toMatch(/INIT_START Runtime Version: nodejs:24\./);
    expect(r.stdout).toContain(
      "Network profile uniform-8ms (seed 1): DynamoDB round trip 8 ms, service time the local engine's own;",
    );
    expect(r.stdout).toMatch(/Keep-alive, DynamoDB get: database time p50 [\d.]+ ms without, [\d.]+ ms with/);
  }, 360_000);

  it('rejects bad options with one line and exit code 2, before starting anything', () => {
    for (const args of [
      ['--rate', 'fast'],
      ['--keep-alive', 'maybe'],
      ['--target', 'mars'],
      ['--engine', 'mongo'],
      ['--targets', 'faunadb'],
      ['--no-such-option'],
    ]) {
      const r = spawnSync(process.execPath, ['--import', 'tsx', 'loadtest/load.ts', ...args], {
        cwd: PROJECT_ROOT,
        encoding: 'utf8',
      });
      expect(r.status, args.join(' ')).toBe(2);
      expect(r.stderr.trim().split('\n')).toHaveLength(1);
      expect(r.stderr).toMatch(/^load: (--|Unknown option)/);
    }
  });
});
