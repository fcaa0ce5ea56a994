/**
 * Restart and durability (slow tier, test/tiers.mjs): each local DynamoDB engine keeps its items
 * in dataDir across a stop and a start. The JVM's two starts make dynamodb-local's case the
 * slowest engine test; the fast tier keeps each engine's start, round trip and stop (engines.test.ts).
 */
import { execFile } from 'node:child_process';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { beforeAll, describe, expect, it } from 'vitest';
import { createTable, type EngineKind, FETCH_SCRIPT } from '../../local/engines';
import {
  cleanUpEngines,
  getFirstName,
  isRunning,
  putPerson,
  start,
  TABLE,
  tempDir,
} from '../support/engine-tests';

cleanUpEngines();

beforeAll(async () => {
  // DynamoDB Local's jar (Maven Central) on a cold machine only; a warm run returns at once.
  await promisify(execFile)('bash', [FETCH_SCRIPT], { cwd: join(import.meta.dirname, '../..') });
}, 240_000);

describe.each([
  ['dynalite', 20_000],
  ['dynamodb-local', 120_000],
] as const)('%s', (kind: EngineKind, timeoutMs: number) => {
  it(
    'keeps items in dataDir across a restart',
    async () => {
      const dataDir = await tempDir();
      const first = await start({ kind, port: 0, dataDir });
      await createTable(first.endpoint, TABLE);
      await putPerson(first.endpoint, 'P-2');
      await first.stop();
      expect(isRunning(first.pid)).toBe(false);

      const second = await start({ kind, port: 0, dataDir });
      expect(second.pid).not.toBe(first.pid);
      await createTable(second.endpoint, TABLE); // exists already: fine
      expect(await getFirstName(second.endpoint, 'P-2')).toBe('Ada');
    },
    timeoutMs * 2,
  );
});
