import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { deflateRawSync } from 'node:zlib';
import { bundleBudgetOf, parseFunctionKey } from '../../core/lab-functions';
import type { AssemblyFunction } from './cloud-assembly';

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
  // Each target's module gives its budget (TargetInfo.bundleBudgetBytes).
  const target = parseFunctionKey(fn.name)?.target ?? fn.name.split('-')[0];
  return { name: fn.name, minifiedBytes: minified, zippedBytes: zipped, budgetBytes: bundleBudgetOf(target) };
}

export function measureBundles(functions: readonly AssemblyFunction[]): BundleSize[] {
  return functions.map(measureBundle).sort((a, b) => a.name.localeCompare(b.name));
}
