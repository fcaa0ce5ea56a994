import { spawn } from 'node:child_process';
import { join } from 'node:path';
import type { TestProject } from 'vitest/node';
import { PROJECT_ROOT } from '../../core/paths';
import { ensureSynth } from '../../local/assembly/ensure-synth';
import { localOutdir, localSynthContext } from '../../local/lab';
import { loadTargetModules } from '../../targets/registry';
import { LAB_TEST_CONTEXT } from './lab-test-context';
import { startEngineBroker } from './shared-engines';

/** The test run's JVM flags (JAVA_TOOL_OPTIONS): C1 only, the serial GC. */
export const TEST_JVM_OPTIONS = '-XX:TieredStopAtLevel=1 -XX:+UseSerialGC';

/**
 * Once per run, before test files run in parallel: the engines' and clients' packages, one
 * synth for every test that starts the local lab (with LAB_TEST_CONTEXT, so they never race
 * to write it; a slow-tier test with other flags synthesizes its own, under ensureSynth's lock),
 * and the shared local DynamoDB engines (shared-engines.ts).
 *
 * Only what nearly every file needs holds the first file back. On a fresh clone the synth
 * (~20 s), the conformance clients' venv (~20 s, mostly waiting on pip's downloads) and
 * DynamoDB Local's fetch (~8 s of Maven) run in the background while the first files run, and
 * whatever needs one waits for it: a lab start on ensureSynth's lock (taken here before the
 * first file starts), a Python client on the broker's `ready/conformance-clients`, DynamoDB
 * Local on its fetch. Warm, each of them finds its work done in milliseconds.
 */
export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  // The synth context below asks each target's module what it needs.
  await loadTargetModules();
  // Every JVM of the run (DynamoDB Local: the shared one, engines.test.ts's, a lab's), and only
  // those: set before any worker starts, so they inherit it. A test's JVM answers a few thousand
  // requests at most; the default C2 compiler and parallel GC spend twice the CPU of C1 and one
  // GC thread on that. A value of the caller's own is kept.
  process.env.JAVA_TOOL_OPTIONS ??= TEST_JVM_OPTIONS;
  // The redis and dsql tests run a real redis-server and PostgreSQL (16, fetched once per user
  // and linked into .cache/): install each before test files run in parallel, or say how. One
  // after the other: apt-get takes a lock.
  await runScript('scripts/ensure-redis.sh');
  await runScript('scripts/ensure-postgres.sh');
  // The conformance suite's outside clients (botocore, pyqldb, psycopg, curl, psql, redis-cli)
  // come after the engines, whose packages bring psql and redis-cli.
  const clients = runScript('scripts/ensure-conformance-clients.sh');
  // Idempotent: a complete install costs it a few milliseconds.
  const dynamoDbLocal = runScript('scripts/fetch-dynamodb-local.sh');
  const context = localSynthContext(LAB_TEST_CONTEXT);
  let onLocked = () => {};
  const locked = new Promise<void>((resolve) => {
    onLocked = resolve;
  });
  const synth = ensureSynth(
    localOutdir(context),
    context,
    (line) => console.log(line),
    () => onLocked(),
  );
  // Until this holds the lock, a lab test could start a second synth of the same folder.
  await Promise.race([locked, synth]);
  const background = [clients, dynamoDbLocal, synth];
  // A failed task fails the tests that wait for it, with its error; the run's end reports it too.
  for (const task of background) task.catch(() => {});
  const engines = await startEngineBroker({
    tasks: { 'conformance-clients': clients },
    before: { 'dynamodb-local': dynamoDbLocal },
  });
  project.provide('sharedEnginesUrl', engines.url);
  return async () => {
    await engines.stop();
    // A run of one quick file ends before them: let them finish, so the next run finds them done.
    const failed = (await Promise.allSettled(background)).filter((r) => r.status === 'rejected');
    if (failed.length > 0)
      throw new AggregateError(
        failed.map((r) => r.reason),
        'a set-up task of the test run failed',
      );
  };
}

/** Runs a set-up script, its output on the run's; rejects with its last lines when it fails. */
function runScript(script: string): Promise<void> {
  return new Promise((resolve, reject) => {
    const child = spawn('bash', [join(PROJECT_ROOT, script)], {
      cwd: PROJECT_ROOT,
      stdio: ['ignore', 'inherit', 'pipe'],
    });
    let stderr = '';
    child.stderr.on('data', (d: Buffer) => {
      process.stderr.write(d);
      stderr = (stderr + d.toString()).slice(-4000);
    });
    child.on('error', reject);
    child.on('close', (code) =>
      code === 0 ? resolve() : reject(new Error(`${script} failed (exit ${code}): ${stderr.trim()}`)),
    );
  });
}
