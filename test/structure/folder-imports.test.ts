/**
 * The house's structure, checked: no top-level folder imports a folder that imports it back,
 * and the shared kernel imports nothing of the project's, so any CLI can load it cheaply.
 */
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, normalize, relative } from 'node:path';
import { describe, expect, it } from 'vitest';
import { PROJECT_ROOT } from '../../core/paths';

const SKIP = new Set(['node_modules', '.cache', 'cdk.out', 'results', '.git']);
const SOURCE = /\.(ts|mts|mjs|cjs)$/;
const IMPORT = /(?:\bfrom\s*|\bimport\s*\(\s*|\bimport\s+|\brequire\s*\(\s*)['"](\.{1,2}\/[^'"]+)['"]/g;

function* sources(dir: string): Generator<string> {
  for (const entry of readdirSync(dir)) {
    if (SKIP.has(entry)) continue;
    const path = join(dir, entry);
    if (statSync(path).isDirectory()) yield* sources(path);
    else if (SOURCE.test(entry)) yield path;
  }
}

/** top-level folder -> the top-level folders its files import */
function folderGraph(): Map<string, Set<string>> {
  const graph = new Map<string, Set<string>>();
  for (const file of sources(PROJECT_ROOT)) {
    const from = relative(PROJECT_ROOT, file).split('/')[0];
    if (!relative(PROJECT_ROOT, file).includes('/')) continue;
    for (const m of readFileSync(file, 'utf8').matchAll(IMPORT)) {
      const target = relative(PROJECT_ROOT, normalize(join(dirname(file), m[1]))).split('/')[0];
      if (target === from || target.startsWith('..')) continue;
      if (!graph.has(from)) graph.set(from, new Set());
      graph.get(from)?.add(target);
    }
  }
  return graph;
}

describe('folder imports', () => {
  const graph = folderGraph();

  it('finds the imports it checks', () => {
    expect(graph.get('loadtest')?.has('core')).toBe(true);
    expect(graph.get('report')?.has('runs')).toBe(true);
  });

  it('has no two top-level folders that import each other', () => {
    const cycles: string[] = [];
    for (const [a, targets] of graph) {
      for (const b of targets) if (a < b && graph.get(b)?.has(a)) cycles.push(`${a} <-> ${b}`);
    }
    expect(cycles).toEqual([]);
  });

  it('keeps the shared kernel free of the project: core/ imports no other folder', () => {
    expect([...(graph.get('core') ?? [])]).toEqual([]);
  });

  it('keeps the run-results model below the report and the load runner', () => {
    expect([...(graph.get('runs') ?? [])].sort()).toEqual(['core']);
    expect(graph.get('report')?.has('loadtest') ?? false).toBe(false);
  });

  it('lets the report read Power Tuning results through the parser alone, not the SDK runner', () => {
    const fromReport = new Set<string>();
    for (const file of sources(join(PROJECT_ROOT, 'report'))) {
      for (const m of readFileSync(file, 'utf8').matchAll(IMPORT)) {
        const target = relative(PROJECT_ROOT, normalize(join(dirname(file), m[1])));
        if (target.startsWith('tune/')) fromReport.add(target.replace(/\.ts$/, ''));
      }
    }
    expect([...fromReport]).toEqual(['tune/power-tuning-result']);
  });
});
