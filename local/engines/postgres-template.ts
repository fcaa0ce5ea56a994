/**
 * A fresh PostgreSQL cluster by copy: initdb's output for one binary and set of options is the
 * same every time, and initdb (a bootstrap and a single-user server) is most of a start's CPU,
 * which the test tiers pay once per engine they start. The first cluster made with a binary is
 * kept under .cache/postgres-templates/, named by the binary and the options; later ones copy it.
 * `cp -a` keeps the files' owner, so a copy made as root is the engine user's, as initdb's is.
 * Only an optimisation: a template that cannot be read or written means initdb, as before.
 */
import { execFile } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, realpathSync, statSync } from 'node:fs';
import { mkdir, rename, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { CACHE_DIR } from '../../core/paths';

const run = promisify(execFile);
const TEMPLATES_DIR = join(CACHE_DIR, 'postgres-templates');

/** The template's folder for initdb in binDir run with these arguments (its -D left out). */
export function templateDir(binDir: string, initdbArgs: readonly string[]): string {
  const initdb = realpathSync(join(binDir, 'initdb'));
  const { size, mtimeMs } = statSync(initdb);
  const key = createHash('sha256')
    .update(JSON.stringify([initdb, size, mtimeMs, initdbArgs]))
    .digest('hex')
    .slice(0, 16);
  return join(TEMPLATES_DIR, key);
}

/** Copies the template into dataDir (which exists, empty); false when there is none to copy. */
export async function copyTemplate(template: string, dataDir: string): Promise<boolean> {
  if (!existsSync(join(template, 'PG_VERSION'))) return false;
  try {
    await run('cp', ['-a', `${template}/.`, dataDir], { timeout: 60_000 });
    return true;
  } catch {
    // Whatever it copied goes: initdb wants an empty folder.
    await run('find', [dataDir, '-mindepth', '1', '-delete']).catch(() => {});
    return false;
  }
}

/** Keeps dataDir, just made by initdb and never started, as the template (first writer wins). */
export async function saveTemplate(template: string, dataDir: string): Promise<void> {
  if (existsSync(template)) return;
  const partial = `${template}.${process.pid}-${Date.now()}`;
  try {
    await mkdir(TEMPLATES_DIR, { recursive: true });
    await run('cp', ['-a', dataDir, partial], { timeout: 60_000 });
    // Atomic: a reader sees the whole template or none.
    await rename(partial, template);
  } catch {
    // Another process saved it first, or .cache is not writable: initdb next time too.
  } finally {
    await rm(partial, { recursive: true, force: true });
  }
}
