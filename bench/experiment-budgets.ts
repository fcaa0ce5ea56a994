/**
 * Each experiment's `--quick` wall time against its 3-minute budget, measured as a user runs it
 * (`npm run experiment -- NAME --quick`). Printed, never asserted: a loaded machine is slow, not wrong.
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PROJECT_ROOT } from '../core/paths';

export const QUICK_BUDGET_S = 180;

export interface ExperimentBudgetRow {
  readonly name: string;
  readonly wallS: number;
  readonly exitCode: number | null;
}

export function experimentBudgets(names: readonly string[], log: (row: ExperimentBudgetRow) => void): void {
  const root = mkdtempSync(join(tmpdir(), 'lab-bench-experiments-'));
  try {
    for (const name of names) {
      const started = process.hrtime.bigint();
      const r = spawnSync(
        'npm',
        ['run', '-s', 'experiment', '--', name, '--quick', '--out', join(root, name)],
        {
          cwd: PROJECT_ROOT,
          stdio: 'ignore',
        },
      );
      log({ name, wallS: Number(process.hrtime.bigint() - started) / 1e9, exitCode: r.status });
    }
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
}
