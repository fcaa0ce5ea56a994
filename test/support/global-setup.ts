import { execFileSync } from 'node:child_process';
import { join } from 'node:path';
import type { TestProject } from 'vitest/node';
import { PROJECT_ROOT } from '../../core/paths';
import { ensureSynth } from '../../local/assembly/ensure-synth';
import { localOutdir, localSynthContext } from '../../local/lab';
import { LAB_TEST_CONTEXT } from './lab-test-context';
import { startEngineBroker } from './shared-engines';

/**
 * Once per run, before test files run in parallel: the engines' and clients' packages, one
 * synth for every test that starts the local lab (with LAB_TEST_CONTEXT, so they never race
 * to write it; a slow-tier test with other flags synthesizes its own, under ensureSynth's lock), and the shared local DynamoDB engines (shared-engines.ts).
 */
export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  // The redis and dsql tests run a real redis-server and PostgreSQL: install each once
  // (Debian packages), before test files run in parallel, or say how.
  // The conformance suite's outside clients (botocore, pyqldb, psycopg, curl, psql, redis-cli)
  // come after the engines, whose packages bring psql and redis-cli.
  for (const script of [
    'scripts/ensure-redis.sh',
    'scripts/ensure-postgres.sh',
    'scripts/ensure-conformance-clients.sh',
  ]) {
    execFileSync('bash', [join(PROJECT_ROOT, script)], { stdio: 'inherit' });
  }
  const context = localSynthContext(LAB_TEST_CONTEXT);
  await ensureSynth(localOutdir(context), context, (line) => console.log(line));
  const engines = await startEngineBroker();
  project.provide('sharedEnginesUrl', engines.url);
  return () => engines.stop();
}
