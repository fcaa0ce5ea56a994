/**
 * The project's file-level import graph, for the structure tests: every source file, the
 * project files it imports, and the cycles among them. Type-only imports, re-exports,
 * dynamic import() and require() all count: a circle of types is still a circle a reader
 * has to untangle. Files are parsed (Oxc's parser, through rolldown's parseAst: TypeScript's
 * own compiler, pinned at 7.x, has no JavaScript API), so an import written in a comment or a
 * string is not one.
 */
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, normalize, relative, sep } from 'node:path';
import { parseAst } from 'rolldown/parseAst';

const SKIP = new Set(['node_modules', '.cache', 'cdk.out', 'results', '.git']);
const SOURCE = /\.(ts|mts|cts|tsx|mjs|cjs|js)$/;

export function* sourceFiles(dir: string): Generator<string> {
  for (const entry of readdirSync(dir)) {
    if (SKIP.has(entry)) continue;
    const path = join(dir, entry);
    if (statSync(path).isDirectory()) yield* sourceFiles(path);
    else if (SOURCE.test(entry)) yield path;
  }
}

interface AstNode {
  readonly type: string;
  readonly [key: string]: unknown;
}

const isNode = (v: unknown): v is AstNode =>
  typeof v === 'object' && v !== null && typeof (v as { type?: unknown }).type === 'string';

/** A string literal, or a template literal without substitutions. */
function literal(v: unknown): string | undefined {
  if (!isNode(v)) return undefined;
  if (v.type === 'Literal' && typeof v.value === 'string') return v.value;
  if (v.type === 'TemplateLiteral' && (v.expressions as unknown[]).length === 0)
    return ((v.quasis as AstNode[])[0].value as { cooked: string }).cooked;
  return undefined;
}

/** The module specifier a node names, when it is an import of any kind. */
function specifierOf(node: AstNode): string | undefined {
  switch (node.type) {
    case 'ImportDeclaration':
    case 'ExportAllDeclaration':
    case 'ExportNamedDeclaration':
      return literal(node.source);
    case 'ImportExpression':
      return literal(node.source);
    case 'CallExpression': {
      const callee = node.callee as AstNode;
      const required = callee.type === 'Identifier' && callee.name === 'require';
      return required ? literal((node.arguments as unknown[])[0]) : undefined;
    }
    case 'TSImportType':
      // `typeof import('./x')` in a type position
      return literal(node.source);
    case 'TSExternalModuleReference':
      return literal(node.expression);
    default:
      return undefined;
  }
}

function parseModule(file: string, source: string) {
  const lang = /\.d\.[cm]?ts$/.test(file) ? 'dts' : /\.[cm]?tsx?$/.test(file) ? 'ts' : 'js';
  try {
    return parseAst(source, { lang, sourceType: file.endsWith('.cjs') ? 'commonjs' : 'module' }, file);
  } catch (e) {
    throw new Error(`${file}: ${(e as Error).message}`);
  }
}

/** Every module specifier `source` imports, in the order written. */
export function importsOf(file: string, source: string): string[] {
  const ast = parseModule(file, source);
  const found: string[] = [];
  const walk = (v: unknown): void => {
    if (Array.isArray(v)) for (const item of v) walk(item);
    else if (isNode(v)) {
      const spec = specifierOf(v);
      if (spec !== undefined) found.push(spec);
      for (const child of Object.values(v)) if (typeof child === 'object') walk(child);
    }
  };
  walk(ast.body);
  return found;
}

/** The file a relative specifier names (TypeScript's resolution: `.js` may mean `.ts`), or undefined. */
export function resolveImport(fromFile: string, specifier: string): string | undefined {
  if (!specifier.startsWith('./') && !specifier.startsWith('../')) return undefined;
  const base = normalize(join(dirname(fromFile), specifier.replace(/[?#].*$/, '')));
  const swapped = base
    .replace(/\.js$/, '.ts')
    .replace(/\.mjs$/, '.mts')
    .replace(/\.cjs$/, '.cts');
  const candidates = [
    base,
    swapped,
    ...['.ts', '.mts', '.cts', '.tsx', '.d.ts', '.mjs', '.js', '.cjs'].map((ext) => base + ext),
    join(base, 'index.ts'),
    join(base, 'index.js'),
  ];
  return candidates.find((c) => existsSync(c) && statSync(c).isFile());
}

/** Project file (relative to `root`, `/`-separated) -> the project files it imports. */
export function fileGraph(root: string): Map<string, Set<string>> {
  const rel = (file: string) => relative(root, file).split(sep).join('/');
  const graph = new Map<string, Set<string>>();
  for (const file of sourceFiles(root)) {
    const targets = new Set<string>();
    for (const spec of importsOf(file, readFileSync(file, 'utf8'))) {
      const target = resolveImport(file, spec);
      if (target !== undefined && !relative(root, target).startsWith('..')) targets.add(rel(target));
    }
    graph.set(rel(file), targets);
  }
  return graph;
}

export interface ImportCycle {
  /** the files that import each other in a circle (a strongly connected component), sorted */
  readonly files: readonly string[];
  /** one shortest circle through the first of them: `[a, b, a]` */
  readonly path: readonly string[];
}

/** The graph's cycles, one per strongly connected component (Tarjan's algorithm). */
export function importCycles(graph: ReadonlyMap<string, ReadonlySet<string>>): ImportCycle[] {
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const components: string[][] = [];
  const edges = (v: string) => [...(graph.get(v) ?? [])].sort();

  const connect = (v: string) => {
    index.set(v, index.size);
    low.set(v, index.get(v) as number);
    stack.push(v);
    onStack.add(v);
    for (const w of edges(v)) {
      if (!index.has(w)) {
        connect(w);
        low.set(v, Math.min(low.get(v) as number, low.get(w) as number));
      } else if (onStack.has(w)) low.set(v, Math.min(low.get(v) as number, index.get(w) as number));
    }
    if (low.get(v) === index.get(v)) {
      const component: string[] = [];
      let w: string;
      do {
        w = stack.pop() as string;
        onStack.delete(w);
        component.push(w);
      } while (w !== v);
      if (component.length > 1 || graph.get(v)?.has(v)) components.push(component.sort());
    }
  };
  for (const v of [...graph.keys()].sort()) if (!index.has(v)) connect(v);

  return components
    .map((files) => ({ files, path: pathBack(files[0], new Set(files), edges) }))
    .sort((a, b) => a.files[0].localeCompare(b.files[0]));
}

/** A shortest path from `start` back to itself inside one component (breadth first). */
function pathBack(start: string, within: ReadonlySet<string>, edges: (v: string) => string[]): string[] {
  const from = new Map<string, string>();
  const queue = [start];
  while (queue.length > 0) {
    const v = queue.shift() as string;
    for (const w of edges(v)) {
      if (!within.has(w)) continue;
      if (w === start) {
        const between: string[] = [];
        for (let u = v; u !== start; u = from.get(u) as string) between.unshift(u);
        return [start, ...between, start];
      }
      if (!from.has(w)) {
        from.set(w, v);
        queue.push(w);
      }
    }
  }
  return [start, start];
}
