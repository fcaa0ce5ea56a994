/**
 * Synthesizes into cdk.out/ when it is missing or stale for the flags the local lab
 * needs. Staleness is a fingerprint of the flags and every source that shapes the
 * templates or bundles, so an edited handler is never served from an old bundle.
 */
import { spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { PROJECT_ROOT } from '../../core/paths';

// core/ is part of every bundle (lambda/ imports its timing schema) and of the stacks.
const SOURCES = ['bin', 'lib', 'lambda', 'core', 'cdk.json', 'package-lock.json'];
const FINGERPRINT_FILE = 'lab-fingerprint.json';

function* files(path: string): Generator<string> {
  if (!existsSync(path)) return;
  if (statSync(path).isFile()) {
    yield path;
    return;
  }
  for (const entry of readdirSync(path).sort()) yield* files(join(path, entry));
}

export function fingerprint(context: Record<string, string>, root = PROJECT_ROOT): string {
  const hash = createHash('sha256');
  hash.update(JSON.stringify(Object.entries(context).sort()));
  for (const source of SOURCES) {
    for (const file of files(join(root, source))) {
      hash.update(relative(root, file));
      hash.update(readFileSync(file));
    }
  }
  return hash.digest('hex');
}

export function isFresh(outdir: string, context: Record<string, string>): boolean {
  const file = join(outdir, FINGERPRINT_FILE);
  if (!existsSync(join(outdir, 'manifest.json')) || !existsSync(file)) return false;
  return JSON.parse(readFileSync(file, 'utf8')).fingerprint === fingerprint(context);
}

/** Runs `cdk synth` with the given -c flags unless cdk.out already matches them. */
export async function ensureSynth(
  outdir: string,
  context: Record<string, string>,
  log: (line: string) => void,
): Promise<{ synthesized: boolean }> {
  if (isFresh(outdir, context)) return { synthesized: false };
  const flags = Object.entries(context).flatMap(([k, v]) => ['-c', `${k}=${v}`]);
  log(
    `Synthesizing into ${relative(process.cwd(), outdir) || '.'} (${flags.filter((_, i) => i % 2).join(' ')}) ...`,
  );
  const started = Date.now();
  const child = spawn('npx', ['cdk', 'synth', '--no-notices', '-q', '-o', outdir, ...flags], {
    cwd: PROJECT_ROOT,
    stdio: ['ignore', 'ignore', 'pipe'],
    env: { ...process.env, CDK_DISABLE_VERSION_CHECK: '1', CDK_DISABLE_CLI_TELEMETRY: '1' },
  });
  let stderr = '';
  child.stderr.on('data', (d: Buffer) => {
    stderr += d.toString();
  });
  const code = await new Promise<number | null>((r) => child.on('close', r));
  if (code !== 0) throw new Error(`cdk synth failed (exit ${code}):\n${stderr.trim()}`);
  writeFileSync(
    join(outdir, FINGERPRINT_FILE),
    JSON.stringify({ fingerprint: fingerprint(context), context }),
  );
  log(`Synthesized in ${((Date.now() - started) / 1000).toFixed(1)} s`);
  return { synthesized: true };
}
