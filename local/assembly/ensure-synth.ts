/**
 * Synthesizes into cdk.out/ when it is missing or stale for the flags the local lab
 * needs. Staleness is a fingerprint of the flags and every source that shapes the
 * templates or bundles, so an edited handler is never served from an old bundle.
 */
import { spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { lock } from 'proper-lockfile';
import { PROJECT_ROOT } from '../../core/paths';
import { targetModulePaths } from '../../core/target-modules';

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
  // A registered target module's folder shapes the templates and bundles as bin/ and lambda/ do.
  const modules = targetModulePaths().map((m) => relative(root, dirname(m)));
  for (const source of [...SOURCES, 'targets', ...modules]) {
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

/**
 * Runs `cdk synth` with the given -c flags unless the folder already matches them. Two labs
 * started at once with the same flags (two test files, a load beside npm run local) would
 * both synthesize into one folder, which the CDK CLI refuses: the second waits for the
 * first's lock, then finds the folder fresh.
 */
export async function ensureSynth(
  outdir: string,
  context: Record<string, string>,
  log: (line: string) => void,
  /**
   * Called once this call holds the folder's lock (never when the folder was fresh): from then
   * on, any other ensureSynth of the folder waits for this one (the test run's global setup
   * synthesizes in the background once it holds the lock).
   */
  onLocked?: () => void,
): Promise<{ synthesized: boolean }> {
  if (isFresh(outdir, context)) return { synthesized: false };
  mkdirSync(outdir, { recursive: true });
  const release = await lock(outdir, {
    // A synth takes seconds to a minute; a lock not refreshed for 2 min belongs to a dead process.
    stale: 120_000,
    retries: { retries: 600, minTimeout: 200, maxTimeout: 1000 },
  });
  onLocked?.();
  try {
    if (isFresh(outdir, context)) return { synthesized: false };
    return await synthesize(outdir, context, log);
  } finally {
    await release();
  }
}

async function synthesize(
  outdir: string,
  context: Record<string, string>,
  log: (line: string) => void,
): Promise<{ synthesized: boolean }> {
  const flags = Object.entries(context).flatMap(([k, v]) => ['-c', `${k}=${v}`]);
  log(
    `Synthesizing into ${relative(process.cwd(), outdir) || '.'} (${flags.filter((_, i) => i % 2).join(' ')}) ...`,
  );
  const started = Date.now();
  const child = spawn('npx', ['cdk', 'synth', '--no-notices', '-q', '-o', outdir, ...flags], {
    cwd: PROJECT_ROOT,
    stdio: ['ignore', 'ignore', 'pipe'],
    env: {
      ...process.env,
      CDK_DISABLE_VERSION_CHECK: '1',
      CDK_DISABLE_CLI_TELEMETRY: '1',
      // CDK's built-in CloudFormation validation is about half of a synth's time and only warns
      // (its warnings were never shown here); `npm run synth` and deploys still run it, and
      // test/infra/cdk-synth.test.ts asserts it finds nothing.
      CDK_VALIDATION: 'false',
    },
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
