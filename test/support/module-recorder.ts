/**
 * Runs a script in a child Node and records every module it loaded, to prove a CLI's --help
 * stays light: an ESM resolve hook (module.register) logs every URL it resolves, and at exit
 * the CommonJS cache is logged too (what require() loaded, which ESM hooks do not see on
 * Node 20). Tests pair it with a control run that loads a heavy package on purpose, so a
 * recorder that saw nothing cannot pass.
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { PROJECT_ROOT } from '../../core/paths';

/** What no CLI may load before it needs it. */
export const HEAVY = ['@aws-sdk', 'vega', 'vega-lite', 'artillery', 'aws-cdk-lib'] as const;

export interface Loaded {
  readonly status: number | null;
  readonly stdout: string;
  readonly stderr: string;
  /** Every file or URL the child resolved or required. */
  readonly files: string[];
}

/** The package a resolved file belongs to (the last node_modules segment), or undefined. */
export function packageOf(file: string): string | undefined {
  const m = /node_modules\/((?:@[^/]+\/)?[^/]+)\/(?!.*node_modules\/)/.exec(file.replace(/\\/g, '/'));
  return m?.[1];
}

/** The packages among `files` that belong to one of `heavy` (a scope or a name). */
export function heavyPackages(files: readonly string[], heavy: readonly string[] = HEAVY): string[] {
  const found = new Set<string>();
  for (const f of files) {
    const pkg = packageOf(f);
    if (pkg && heavy.some((h) => pkg === h || pkg.startsWith(`${h}/`))) found.add(pkg);
  }
  return [...found].sort();
}

export class ModuleRecorder {
  private readonly dir = mkdtempSync(join(tmpdir(), 'lab-module-recorder-'));
  private readonly preload: string;
  private runs = 0;

  constructor() {
    const hook = join(this.dir, 'hook.mjs');
    writeFileSync(
      hook,
      `import { appendFileSync } from 'node:fs';
let log;
export function initialize(data) { log = data.log; }
export async function resolve(specifier, context, next) {
  const r = await next(specifier, context);
  appendFileSync(log, r.url + '\\n');
  return r;
}
`,
    );
    this.preload = join(this.dir, 'preload.mjs');
    writeFileSync(
      this.preload,
      `import { appendFileSync } from 'node:fs';
import { createRequire, register } from 'node:module';
const log = process.env.LAB_MODULE_LOG;
register(${JSON.stringify(pathToFileURL(hook).href)}, { data: { log } });
process.on('exit', () => {
  appendFileSync(log, Object.keys(createRequire(import.meta.url).cache).join('\\n') + '\\n');
});
`,
    );
  }

  /** `node --import tsx <args>` from the project root, with the recorders. */
  run(args: readonly string[]): Loaded {
    this.runs += 1;
    const log = join(this.dir, `modules-${this.runs}.log`);
    writeFileSync(log, '');
    const env: NodeJS.ProcessEnv = { ...process.env, LAB_MODULE_LOG: log };
    delete env.NODE_OPTIONS;
    delete env.NODE_DEBUG;
    const child = spawnSync(
      process.execPath,
      ['--import', 'tsx', '--import', pathToFileURL(this.preload).href, ...args],
      { cwd: PROJECT_ROOT, env, encoding: 'utf8', timeout: 60_000 },
    );
    return {
      status: child.status,
      stdout: child.stdout,
      stderr: child.stderr,
      files: readFileSync(log, 'utf8').split('\n').filter(Boolean),
    };
  }

  dispose(): void {
    rmSync(this.dir, { recursive: true, force: true });
  }
}
