/**
 * The local QLDB engine's durability promise: a commit it acknowledged survives SIGKILL of the
 * engine process in the middle of a stream of commits, and a torn last journal line (a crash
 * mid-write) is dropped on restart without harming what follows. Both with the journal synced
 * per commit (--data) and only written (the lab's run data: the page cache outlives the process).
 */
import { appendFile, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { QldbDriver } from 'amazon-qldb-driver-nodejs';
import { afterAll, expect, it, vi } from 'vitest';
import { createLabHttp } from '../../lambda/shared/http-client';
import type { Person } from '../../lambda/shared/person';
import { JOURNAL_FILE, type QldbEngine, startQldbEngine } from '../../targets/qldb/engine';
import { createQldbDriver, createQldbStore } from '../../targets/qldb/store';
import { onEvent } from '../../targets/qldb/tables-resource';

const LEDGER = 'durable';
const drivers: QldbDriver[] = [];
const engines: QldbEngine[] = [];
const dirs: string[] = [];

afterAll(async () => {
  for (const d of drivers) d.close();
  for (const e of engines) await e.stop();
  for (const d of dirs) await rm(d, { recursive: true, force: true });
});

function driverFor(engine: QldbEngine): QldbDriver {
  const driver = createQldbDriver(LEDGER, createLabHttp('on').options, {
    region: 'us-east-1',
    credentials: { accessKeyId: 'local', secretAccessKey: 'local' },
    endpoint: engine.endpoint,
  });
  drivers.push(driver);
  return driver;
}

async function start(dataDir: string, syncJournal: boolean): Promise<QldbEngine> {
  const engine = await startQldbEngine({ dataDir, ledgers: [LEDGER], syncJournal });
  engines.push(engine);
  return engine;
}

async function govIds(engine: QldbEngine): Promise<string[]> {
  const driver = driverFor(engine);
  const rows = await driver.executeLambda(async (txn) =>
    (await txn.execute('SELECT GovId FROM Person')).getResultList(),
  );
  return rows.map((r) => r.get('GovId')?.stringValue() ?? '').sort();
}

function person(i: number): Person {
  return {
    GovId: `DUR-${String(i).padStart(3, '0')}`,
    FirstName: 'Ada',
    LastName: 'Lovelace',
    DOB: '1815-12-10',
    GovIdType: 'Passport',
  } as Person;
}

it.each([
  ['synced', true],
  ['written, not synced', false],
])(
  'keeps every acknowledged commit across SIGKILL mid-stream and ignores a torn last line (journal %s)',
  async (_, sync) => {
    vi.spyOn(console, 'log').mockImplementation(() => {});
    const dir = await mkdtemp(join(tmpdir(), 'qldb-durable-'));
    dirs.push(dir);
    const first = await start(dir, sync);
    await onEvent(
      {
        RequestType: 'Create',
        ServiceToken: 'arn:aws:lambda:us-east-1:123456789012:function:provider',
        ResponseURL: 'https://cloudformation-custom-resource-response.example/',
        StackId: 'arn:aws:cloudformation:us-east-1:123456789012:stack/lab/1',
        RequestId: 'request-1',
        LogicalResourceId: 'QldbTables',
        ResourceType: 'Custom::QldbTables',
        ResourceProperties: {
          ServiceToken: 'arn:aws:lambda:us-east-1:123456789012:function:provider',
          LedgerName: LEDGER,
          Tables: ['Person'],
          Indexes: [{ Table: 'Person', Attribute: 'GovId' }],
        },
      },
      () => driverFor(first),
    );

    // Five writers stream creates; once 15 are acknowledged the engine is killed, others in flight.
    const http = createLabHttp('on');
    const store = createQldbStore(driverFor(first), 'Person', http);
    const acknowledged: string[] = [];
    let next = 0;
    let killed = false;
    const writer = async (): Promise<void> => {
      while (!killed && next < 60) {
        const p = person(next++);
        try {
          if ((await store.create(p, AbortSignal.timeout(5_000))) === 'created') acknowledged.push(p.GovId);
        } catch {
          // Refused or cut off by the kill: not acknowledged, so it may or may not be there.
        }
        if (acknowledged.length >= 15 && !killed) {
          killed = true;
          process.kill(first.pid, 'SIGKILL');
        }
      }
    };
    await Promise.all(Array.from({ length: 5 }, writer));
    await first.stop();
    expect(killed).toBe(true);
    // A crash in the middle of writing a commit leaves a line without its newline.
    await appendFile(
      join(dir, JOURNAL_FILE),
      '{"v":1,"ledger":"durable","txn":"torn","docs":[{"ion":"{GovId:',
    );

    const second = await start(dir, sync);
    expect(second.replayedCommits).toBeGreaterThanOrEqual(acknowledged.length + 2);
    const afterCrash = await govIds(second);
    expect(afterCrash).toEqual(expect.arrayContaining(acknowledged));
    // Nothing was invented: every document is one a writer sent.
    expect(afterCrash.every((id) => /^DUR-\d{3}$/.test(id))).toBe(true);

    // The journal goes on cleanly after the dropped line: a later commit survives a clean restart.
    expect(
      await createQldbStore(driverFor(second), 'Person', createLabHttp('on')).create(
        person(999),
        AbortSignal.timeout(5_000),
      ),
    ).toBe('created');
    await second.stop();
    const third = await start(dir, sync);
    expect(await govIds(third)).toEqual([...afterCrash, 'DUR-999'].sort());
  },
  60_000,
);
