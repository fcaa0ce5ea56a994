/** Power Tuning outputs (`npm run tune`, cloud or local) as the report shows them. */
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { basename, join, resolve } from 'node:path';
import { parseTuneResultFile } from '../../tune/power-tuning-result';
import type { TuningReport } from '../report-model';

/** Power Tuning result files (cloud or local) in these folders, as the report shows them. */
export async function readTuning(dirs: readonly string[], warnings: string[]): Promise<TuningReport[]> {
  const files: string[] = [];
  for (const dir of [...new Set(dirs.map((d) => resolve(d)))]) {
    if (!existsSync(dir) || !statSync(dir).isDirectory()) continue;
    for (const f of readdirSync(dir).sort()) if (f.endsWith('.json')) files.push(join(dir, f));
  }
  const out: TuningReport[] = [];
  for (const file of files) {
    let json: unknown;
    try {
      json = JSON.parse(readFileSync(file, 'utf8'));
    } catch (e) {
      warnings.push(`Power Tuning file ${file} skipped: not valid JSON (${(e as Error).message})`);
      continue;
    }
    const saved = parseTuneResultFile(json);
    if (!saved) {
      warnings.push(`Power Tuning file ${file} skipped: it holds no result (power, cost, duration)`);
      continue;
    }
    const { output } = saved;
    out.push({
      file,
      function: saved.function ?? basename(file, '.json'),
      where: saved.where,
      profile: saved.profile,
      executionArn: saved.executionArn,
      strategy: saved.strategy,
      powerMb: output.power,
      costUsd: output.cost,
      durationMs: output.duration,
      visualization: output.stateMachine?.visualization ?? null,
      executionCostUsd: output.stateMachine?.executionCost ?? null,
      lambdaCostUsd: output.stateMachine?.lambdaCost ?? null,
      memory: [...(output.stats ?? [])]
        .sort((a, b) => a.value - b.value)
        .map((s) => ({
          memoryMb: s.value,
          avgDurationMs: s.averageDuration ?? null,
          avgCostUsd: s.averagePrice ?? null,
          totalCostUsd: s.totalCost ?? null,
        })),
    });
  }
  return out;
}
