/**
 * A test file's hook that waits for the run's shared DynamoDB engine (test/support/shared-engines.ts)
 * waits at least as long as the engine's own start may take: DynamoDB Local's fetch, then its JVM
 * start under its own bound. A shorter hook (60 s once) gave up first on a loaded 2-core machine
 * and hid the engine's own error.
 */
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { describe, expect, it } from 'vitest';
import { PROJECT_ROOT } from '../../core/paths';
import { DEFAULT_START_TIMEOUT_MS } from '../../targets/dynamodb/dynamodb-local';
import { SHARED_ENGINE_HOOK_MS } from '../support/shared-engines';

function testFiles(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) return testFiles(path);
    return name.endsWith('.test.ts') ? [path] : [];
  });
}

/** Each hook that asks for a shared engine, with the bound written after it (undefined: the config's). */
function sharedEngineHooks(source: string): { bound: string | undefined }[] {
  const hooks: { bound: string | undefined }[] = [];
  const hook = /beforeAll\(async \(\) => \{([\s\S]*?)\n {0,4}\}(?:, ([\w_]+))?\);/g;
  for (const m of source.matchAll(hook)) {
    if (/shared(Test)?Engine\(/.test(m[1])) hooks.push({ bound: m[2] });
  }
  return hooks;
}

describe('hooks that wait for a shared engine', () => {
  it("outlast DynamoDB Local's own start bound", () => {
    expect(SHARED_ENGINE_HOOK_MS).toBeGreaterThan(DEFAULT_START_TIMEOUT_MS);
  });

  it('use SHARED_ENGINE_HOOK_MS (or the config default), never a shorter bound of their own', () => {
    const found: string[] = [];
    for (const file of testFiles(join(PROJECT_ROOT, 'test'))) {
      for (const { bound } of sharedEngineHooks(readFileSync(file, 'utf8'))) {
        const where = relative(PROJECT_ROOT, file);
        found.push(where);
        if (bound !== undefined) expect({ where, bound }).toEqual({ where, bound: 'SHARED_ENGINE_HOOK_MS' });
      }
    }
    // The files that ask: the scan finds them, so a change in how they are written fails here.
    expect(found).toEqual(
      expect.arrayContaining([
        'test/lambda/dynamodb-workloads.test.ts',
        'test/lambda/dynamodb-handlers.test.ts',
      ]),
    );
  });
});
