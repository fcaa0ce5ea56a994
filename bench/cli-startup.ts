/**
 * How fast each CLI answers `--help` and a bad option, against `tsx` running an empty file
 * on the same machine in the same run: the cost of what the CLI loads before it can speak.
 * Runs are interleaved so a busy moment falls on every command alike.
 */
import { spawnSync } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { CACHE_DIR, PROJECT_ROOT } from '../core/paths';
import { ladderOf } from '../runs/latency-histogram';

export const CLIS: readonly { name: string; script: string; preload?: readonly string[] }[] = [
  { name: 'load', script: 'loadtest/load.ts' },
  // As npm run local starts it: the target modules' preload first.
  { name: 'local', script: 'local/cli/local.ts', preload: ['--import', './targets/load-env.ts'] },
  { name: 'report', script: 'report/cli.ts' },
  { name: 'tune', script: 'tune/cli.ts' },
  { name: 'experiment', script: 'experiments/cli.ts' },
];

export interface StartupRow {
  readonly name: string;
  readonly helpP50Ms: number;
  readonly badOptionP50Ms: number;
  /** help p50 / empty-file p50 */
  readonly ratio: number;
}

const TSX = join(PROJECT_ROOT, 'node_modules', '.bin', 'tsx');

function timeRun(args: string[]): number {
  const started = process.hrtime.bigint();
  spawnSync(TSX, args, { cwd: PROJECT_ROOT, stdio: 'ignore', env: { ...process.env, NO_COLOR: '1' } });
  return Number(process.hrtime.bigint() - started) / 1e6;
}

export function cliStartup(runs: number): { emptyP50Ms: number; rows: StartupRow[] } {
  mkdirSync(CACHE_DIR, { recursive: true });
  const empty = join(CACHE_DIR, 'empty.ts');
  writeFileSync(empty, 'export {};\n');
  const present = CLIS.filter((c) => spawnSync('test', ['-f', join(PROJECT_ROOT, c.script)]).status === 0);
  const emptyMs: number[] = [];
  const help = new Map<string, number[]>(present.map((c) => [c.name, []]));
  const bad = new Map<string, number[]>(present.map((c) => [c.name, []]));
  // One warm-up each so every command starts from the same file-system cache.
  timeRun([empty]);
  for (const c of present) timeRun([...(c.preload ?? []), c.script, '--help']);
  for (let i = 0; i < runs; i++) {
    emptyMs.push(timeRun([empty]));
    for (const c of present) {
      help.get(c.name)?.push(timeRun([...(c.preload ?? []), c.script, '--help']));
      bad.get(c.name)?.push(timeRun([...(c.preload ?? []), c.script, '--no-such-option']));
    }
  }
  const p50 = (xs: number[]) => ladderOf(xs)?.p50 ?? Number.NaN;
  const emptyP50Ms = p50(emptyMs);
  return {
    emptyP50Ms,
    rows: present.map((c) => {
      const helpP50Ms = p50(help.get(c.name) ?? []);
      return {
        name: c.name,
        helpP50Ms,
        badOptionP50Ms: p50(bad.get(c.name) ?? []),
        ratio: helpP50Ms / emptyP50Ms,
      };
    }),
  };
}
