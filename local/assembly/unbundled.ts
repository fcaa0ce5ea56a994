/**
 * A function as it deploys without a bundler: its handler transpiled with the project's own
 * modules inlined but every package left as an import (esbuild `packages: 'external'`), beside
 * the node_modules npm would install for those imports (each package's dependencies, installed
 * peers and optional dependencies, recursively, in npm's layout). The QLDB article's
 * "10.18 MB" was such a zip; the lab deploys bundles, so this is built only to measure what
 * bundling saves (zip bytes and Init Duration, experiments/cold-start-compare.ts).
 */
import {
  cpSync,
  existsSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import { builtinModules } from 'node:module';
import { dirname, join, relative, sep } from 'node:path';
import { crc32, deflateRawSync } from 'node:zlib';
import { build } from 'esbuild';
import { PROJECT_ROOT } from '../../core/paths';
import { LAMBDA_NODE_MAJOR } from '../runtime/lambda-node';

export interface UnbundledBuild {
  /** The code folder: index.mjs and node_modules/ (what the host runs, as it runs an asset folder). */
  readonly dir: string;
  /** The packages copied, as `name@version`, sorted. */
  readonly packages: readonly string[];
  readonly files: number;
  /** Every file's bytes, unzipped. */
  readonly bytes: number;
}

const BUILTINS = new Set(builtinModules);

/** `@scope/name/sub` -> `@scope/name`; `name/sub` -> `name`; a Node built-in or a relative path -> undefined. */
export function packageOf(specifier: string): string | undefined {
  if (specifier.startsWith('node:') || specifier.startsWith('.') || specifier.startsWith('/'))
    return undefined;
  const parts = specifier.split('/');
  const name = specifier.startsWith('@') ? parts.slice(0, 2).join('/') : parts[0];
  return BUILTINS.has(name) ? undefined : name;
}

interface PackageJson {
  readonly name?: string;
  readonly version?: string;
  readonly dependencies?: Record<string, string>;
  readonly optionalDependencies?: Record<string, string>;
  readonly peerDependencies?: Record<string, string>;
  readonly peerDependenciesMeta?: Record<string, { optional?: boolean }>;
}

/** Node's lookup: `node_modules/NAME` in `from`, then in each parent up to `root`. */
function findPackage(name: string, from: string, root: string): string | undefined {
  for (let dir = from; ; dir = dirname(dir)) {
    const candidate = join(dir, 'node_modules', name);
    if (existsSync(join(candidate, 'package.json'))) return candidate;
    if (dir === root || dirname(dir) === dir) return undefined;
  }
}

/**
 * The production closure of some packages, as folders under `root`'s node_modules: what
 * `npm install --omit=dev` puts there for them. A missing dependency fails with its name and
 * who needs it; a missing optional one (or optional peer) is left out, as npm leaves it.
 */
export function dependencyClosure(names: readonly string[], root = PROJECT_ROOT): Map<string, PackageJson> {
  const found = new Map<string, PackageJson>();
  const visit = (name: string, from: string, neededBy: string, optional: boolean): void => {
    const dir = findPackage(name, from, root);
    if (!dir) {
      if (optional) return;
      throw new Error(`${name} (needed by ${neededBy}) is not installed under ${root}: run npm ci`);
    }
    if (found.has(dir)) return;
    const pkg = JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8')) as PackageJson;
    found.set(dir, pkg);
    const who = `${pkg.name ?? name}@${pkg.version ?? '?'}`;
    for (const dep of Object.keys(pkg.dependencies ?? {})) visit(dep, dir, who, false);
    for (const dep of Object.keys(pkg.optionalDependencies ?? {})) visit(dep, dir, who, true);
    // npm 7+ installs peers too (the QLDB driver names the SDK client and ion-js as peers).
    for (const dep of Object.keys(pkg.peerDependencies ?? {}))
      visit(dep, dir, who, pkg.peerDependenciesMeta?.[dep]?.optional === true);
  };
  for (const name of names) visit(name, root, 'the handler', false);
  return found;
}

function walk(dir: string, out: string[] = []): string[] {
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) walk(path, out);
    else if (entry.isFile()) out.push(path);
  }
  return out;
}

/**
 * Builds `entry` (a handler source, relative to root) unbundled into `outDir` (emptied first):
 * `index.mjs` with the project's modules inlined and packages imported, and node_modules with
 * their production closure copied from root's.
 */
export async function buildUnbundled(
  entry: string,
  outDir: string,
  root = PROJECT_ROOT,
): Promise<UnbundledBuild> {
  rmSync(outDir, { recursive: true, force: true });
  mkdirSync(outDir, { recursive: true });
  const result = await build({
    entryPoints: [entry],
    absWorkingDir: root,
    bundle: true,
    // Every package stays an import, resolved from node_modules at run time: no bundler.
    packages: 'external',
    platform: 'node',
    format: 'esm',
    target: `node${LAMBDA_NODE_MAJOR}`,
    outfile: join(outDir, 'index.mjs'),
    metafile: true,
    logLevel: 'silent',
  });
  const imports = Object.values(result.metafile.outputs).flatMap((o) => o.imports.filter((i) => i.external));
  const names = [
    ...new Set(imports.map((i) => packageOf(i.path)).filter((n): n is string => n !== undefined)),
  ];
  const closure = dependencyClosure(names, root);
  const modules = join(root, 'node_modules');
  for (const dir of closure.keys()) {
    const to = join(outDir, 'node_modules', relative(modules, dir));
    // A package's own node_modules holds nested versions: each copied on its own, if needed.
    cpSync(dir, to, { recursive: true, filter: (src) => src !== join(dir, 'node_modules') });
  }
  const files = walk(outDir);
  return {
    dir: outDir,
    packages: [...closure.values()].map((p) => `${p.name}@${p.version}`).sort(),
    files: files.length,
    bytes: files.reduce((n, f) => n + statSync(f).size, 0),
  };
}

/**
 * Zips a folder as a Lambda deployment zip (each file deflated, or stored when that is smaller;
 * paths relative to the folder with `/`), writes it to `zipPath` and returns its bytes.
 */
export function zipFolder(dir: string, zipPath: string): number {
  const local: Buffer[] = [];
  const central: Buffer[] = [];
  let offset = 0;
  const files = walk(dir).sort();
  if (files.length > 0xffff)
    throw new Error(`${dir}: ${files.length} files need zip64, which this writer lacks`);
  for (const file of files) {
    const name = Buffer.from(relative(dir, file).split(sep).join('/'));
    const data = readFileSync(file);
    const deflated = deflateRawSync(data, { level: 9 });
    const stored = deflated.length >= data.length;
    const body = stored ? data : deflated;
    const crc = crc32(data);
    const head = Buffer.alloc(30);
    head.writeUInt32LE(0x04034b50, 0);
    head.writeUInt16LE(20, 4); // version needed: 2.0
    head.writeUInt16LE(0x0800, 6); // UTF-8 names
    head.writeUInt16LE(stored ? 0 : 8, 8);
    head.writeUInt32LE(0, 10); // time and date: 1980-01-01, so the same files zip the same
    head.writeUInt32LE(crc, 14);
    head.writeUInt32LE(body.length, 18);
    head.writeUInt32LE(data.length, 22);
    head.writeUInt16LE(name.length, 26);
    head.writeUInt16LE(0, 28);
    const entry = Buffer.alloc(46);
    entry.writeUInt32LE(0x02014b50, 0);
    entry.writeUInt16LE(0x0314, 4); // made by: Unix, 2.0
    entry.writeUInt16LE(20, 6);
    entry.writeUInt16LE(0x0800, 8);
    entry.writeUInt16LE(stored ? 0 : 8, 10);
    entry.writeUInt32LE(0, 12);
    entry.writeUInt32LE(crc, 16);
    entry.writeUInt32LE(body.length, 20);
    entry.writeUInt32LE(data.length, 24);
    entry.writeUInt16LE(name.length, 28);
    entry.writeUInt32LE((0o100644 << 16) >>> 0, 38); // external attributes: a regular file, rw-r--r--
    entry.writeUInt32LE(offset, 42);
    local.push(head, name, body);
    central.push(entry, name);
    offset += head.length + name.length + body.length;
  }
  const centralBytes = central.reduce((n, b) => n + b.length, 0);
  const end = Buffer.alloc(22);
  end.writeUInt32LE(0x06054b50, 0);
  end.writeUInt16LE(files.length, 8);
  end.writeUInt16LE(files.length, 10);
  end.writeUInt32LE(centralBytes, 12);
  end.writeUInt32LE(offset, 16);
  const zip = Buffer.concat([...local, ...central, end]);
  mkdirSync(dirname(zipPath), { recursive: true });
  writeFileSync(zipPath, zip);
  return zip.length;
}
