/**
 * The house's structure, checked: no file imports a file that imports it back, however long
 * the circle and whether the imports are of values or of types; no top-level folder imports
 * a folder that imports it back; and the shared kernel imports nothing of the project's, so
 * any CLI can load it cheaply.
 */
import { describe, expect, it } from 'vitest';
import { PROJECT_ROOT } from '../../core/paths';
import { fileGraph, importCycles } from './import-graph';

const files = fileGraph(PROJECT_ROOT);

/** top-level folder -> the top-level folders its files import */
function folderGraph(): Map<string, Set<string>> {
  const graph = new Map<string, Set<string>>();
  for (const [file, targets] of files) {
    if (!file.includes('/')) continue;
    const from = file.split('/')[0];
    for (const target of targets) {
      const to = target.split('/')[0];
      if (to === from) continue;
      if (!graph.has(from)) graph.set(from, new Set());
      graph.get(from)?.add(to);
    }
  }
  return graph;
}

describe('file imports', () => {
  it('finds the imports it checks, type-only ones included', () => {
    expect(files.get('report/render-markdown.ts')?.has('report/report-sections.ts')).toBe(true);
    // `import type { Plot, PlotSpec } from './page'`: erased at run time, still an edge
    expect(files.get('report/plots.ts')?.has('report/page.ts')).toBe(true);
    // `await import('./plots')`
    expect(files.get('report/write-report.ts')?.has('report/plots.ts')).toBe(true);
  });

  it('has no file-level import cycle', () => {
    expect(importCycles(files)).toEqual([]);
  });
});

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
    for (const [file, targets] of files) {
      if (!file.startsWith('report/')) continue;
      for (const target of targets)
        if (target.startsWith('tune/')) fromReport.add(target.replace(/\.ts$/, ''));
    }
    expect([...fromReport]).toEqual(['tune/power-tuning-result']);
  });
});
