/**
 * The cycle finder behind the structure test: it must see a circle however it is written
 * (type-only imports, re-exports, dynamic import(), require(), `typeof import()`), and must
 * not see one in an import that is only written in a comment or a string.
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { fileGraph, importCycles, importsOf } from './import-graph';

let root: string | undefined;
afterEach(() => {
  if (root) rmSync(root, { recursive: true, force: true });
  root = undefined;
});

/** A throwaway project: path -> source. */
function project(sources: Record<string, string>): string {
  root = mkdtempSync(join(tmpdir(), 'import-graph-'));
  for (const [path, source] of Object.entries(sources)) {
    mkdirSync(dirname(join(root, path)), { recursive: true });
    writeFileSync(join(root, path), source);
  }
  return root;
}

describe('importsOf', () => {
  it('reads every kind of import and none written in a comment or a string', () => {
    const source = [
      "import { a } from './a';",
      "import type { B } from './b';",
      "import { type C, c } from './c';",
      "export { d } from './d';",
      "export type * from './e';",
      "const f = await import('./f');",
      'const g = require(`./g`);',
      "type H = typeof import('./h');",
      "import i = require('./i');",
      "import './j';",
      "// import { k } from './k';",
      "/* await import('./l') */",
      'const text = "import { m } from \'./m\'";',
      "const pattern = /import\\('.\\/n'\\)/;",
    ].join('\n');
    expect(importsOf('x.ts', source)).toEqual([
      './a',
      './b',
      './c',
      './d',
      './e',
      './f',
      './g',
      './h',
      './i',
      './j',
    ]);
  });
});

describe('importCycles', () => {
  it('finds a circle of type-only imports and re-exports across folders, and names its files', () => {
    const dir = project({
      'report/page.ts': "import type { Row } from '../runs/row';\nexport interface Page { rows: Row[] }\n",
      'runs/row.ts': "export type { Block } from './block.js';\nexport interface Row { id: string }\n",
      'runs/block.ts': "import type { Page } from '../report/page';\nexport type Block = Page;\n",
      'runs/leaf.ts': "import type { Row } from './row';\nexport const leaf = (r: Row) => r.id;\n",
    });
    const cycles = importCycles(fileGraph(dir));
    expect(cycles).toEqual([
      {
        files: ['report/page.ts', 'runs/block.ts', 'runs/row.ts'],
        path: ['report/page.ts', 'runs/row.ts', 'runs/block.ts', 'report/page.ts'],
      },
    ]);
  });

  it('finds a circle closed by a dynamic import, and a file that imports itself', () => {
    const dir = project({
      'a.ts': "export async function load() { return import('./b'); }\n",
      'b.mjs': "import { load } from './a.ts';\nexport { load };\n",
      'self.ts': "export * from './self';\n",
    });
    expect(importCycles(fileGraph(dir)).map((c) => c.path)).toEqual([
      ['a.ts', 'b.mjs', 'a.ts'],
      ['self.ts', 'self.ts'],
    ]);
  });

  it('finds none in a graph without circles, and skips node_modules and imports it cannot resolve', () => {
    const dir = project({
      'a.ts':
        "import { b } from './b';\nimport { x } from './missing';\nimport 'pkg';\nexport const a = b + x;\n",
      'b.ts': "import { c } from './lib/c';\nexport const b = c;\n",
      'lib/c.ts': "export const c = 1;\n// import { a } from '../a';\n",
      'node_modules/pkg/index.ts': "import '../../a';\n",
    });
    const graph = fileGraph(dir);
    expect([...graph.keys()].sort()).toEqual(['a.ts', 'b.ts', 'lib/c.ts']);
    expect(importCycles(graph)).toEqual([]);
  });
});
