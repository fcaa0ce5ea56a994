import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { deflateRawSync } from 'node:zlib';
import type { AssemblyFunction } from './cloud-assembly';

/** Zipped-size budgets from the infrastructure issue; the article's webpack bundle was 1.91 MB. */
export const BUDGET_BYTES: Record<string, number> = {
  dynamodb: 100 * 1024,
  qldb: 300 * 1024,
  redis: 100 * 1024,
  dsql: 150 * 1024,
};

export interface BundleSize {
  readonly name: string;
  readonly minifiedBytes: number;
  /** What the deployment zip holds: deflated files plus zip headers (30 + 46 + name per file, 22 end). */
  readonly zippedBytes: number;
  readonly budgetBytes?: number;
}

export function measureBundle(fn: AssemblyFunction): BundleSize {
  let minified = 0;
  let zipped = 22;
  for (const file of readdirSync(fn.assetDir)) {
    const path = join(fn.assetDir, file);
    if (!statSync(path).isFile()) continue;
    const bytes = readFileSync(path);
    minified += bytes.length;
    zipped += deflateRawSync(bytes, { level: 9 }).length + 30 + 46 + 2 * Buffer.byteLength(file);
  }
  const target = fn.name.split('-')[0];
  return { name: fn.name, minifiedBytes: minified, zippedBytes: zipped, budgetBytes: BUDGET_BYTES[target] };
}

export function measureBundles(functions: readonly AssemblyFunction[]): BundleSize[] {
  return functions.map(measureBundle).sort((a, b) => a.name.localeCompare(b.name));
}
