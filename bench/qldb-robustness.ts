/**
 * `node --import tsx bench/qldb-robustness.ts`: how fast the local QLDB engine answers the inputs
 * that once ended or stalled it (issue 40), through its HTTP endpoint as the SDK sends them: the
 * answer (a value or the exception's name) and the median and slowest of 5 runs of each, timed
 * from ExecuteStatement to its answer (the first run parses; later runs hit the parse cache). Then
 * a join of 40^5 rows run into the statement budget while another client starts a session and
 * runs SELECT 1, and whether the engine's process is the one started. Printed, never asserted
 * (test/local/qldb-robustness.test.ts asserts the answers).
 */
import { CreateLedgerCommand, QLDBClient } from '@aws-sdk/client-qldb';
import { QLDBSessionClient, SendCommandCommand } from '@aws-sdk/client-qldb-session';
import { dumpBinary } from 'ion-js';
import { ionHash, startQldbEngine, statementDigest, stringHash } from '../targets/qldb/engine';

const R = { region: 'us-east-1', credentials: { accessKeyId: 'l', secretAccessKey: 'l' } };
const engine = await startQldbEngine({});
const pid = engine.pid;
const control = new QLDBClient({ ...R, endpoint: engine.endpoint });
await control.send(
  new CreateLedgerCommand({ Name: 'f', PermissionsMode: 'STANDARD', DeletionProtection: false }),
);
const c = new QLDBSessionClient({ ...R, endpoint: engine.endpoint, maxAttempts: 1 });
const other = new QLDBSessionClient({ ...R, endpoint: engine.endpoint, maxAttempts: 1 });
async function txn(client = c) {
  const s = await client.send(new SendCommandCommand({ StartSession: { LedgerName: 'f' } }));
  const SessionToken = s.StartSession?.SessionToken;
  const t = await client.send(new SendCommandCommand({ SessionToken, StartTransaction: {} }));
  return { SessionToken, TransactionId: t.StartTransaction?.TransactionId ?? '' };
}
async function exec(statement: string, client = c, params: unknown[] = []) {
  const { SessionToken, TransactionId } = await txn(client);
  const t0 = performance.now();
  try {
    await client.send(
      new SendCommandCommand({
        SessionToken,
        ExecuteStatement: {
          TransactionId,
          Statement: statement,
          Parameters: params.map((p) => ({ IonBinary: dumpBinary(p) })),
        },
      }),
    );
    return { ms: performance.now() - t0, answer: 'value' };
  } catch (e) {
    return { ms: performance.now() - t0, answer: (e as Error).name };
  }
}
{
  const { SessionToken, TransactionId } = await txn();
  let d = stringHash(TransactionId);
  for (const [s, p] of [
    ['CREATE TABLE Person', undefined],
    ['CREATE INDEX ON Person (GovId)', undefined],
    ...Array.from({ length: 40 }, (_, i) => ['INSERT INTO Person ?', { GovId: `G${i}`, n: i }]),
  ] as [string, unknown][]) {
    const params = p === undefined ? [] : [dumpBinary(p)];
    await c.send(
      new SendCommandCommand({
        SessionToken,
        ExecuteStatement: { TransactionId, Statement: s, Parameters: params.map((b) => ({ IonBinary: b })) },
      }),
    );
    d = statementDigest(
      d,
      s,
      params.map((b) => ionHash(b)),
    );
  }
  await c.send(
    new SendCommandCommand({ SessionToken, CommitTransaction: { TransactionId, CommitDigest: d } }),
  );
}
const ors = Array.from({ length: 5_000 }, (_, i) => `n = ${i + 100}`).join(' OR ');
const cases: [string, string][] = [
  ['lone surrogate', "SELECT VALUE 'x\ud800' FROM Person"],
  ["CAST('abc' AS DECIMAL)", "SELECT VALUE CAST('abc' AS DECIMAL) FROM Person WHERE GovId = 'G1'"],
  [
    "TO_TIMESTAMP('13-2016','MM-yyyy')",
    "SELECT VALUE TO_TIMESTAMP('13-2016', 'MM-yyyy') FROM Person WHERE GovId = 'G1'",
  ],
  [
    'DATE_ADD(year, 10000, ...)',
    "SELECT VALUE DATE_ADD(year, 10000, `2017-01-10T`) FROM Person WHERE GovId = 'G1'",
  ],
  ['5,000 ORs (one row)', `SELECT VALUE n FROM Person WHERE GovId = 'G3' AND (n = 3 OR ${ors})`],
  ['5,000 ORs (scan of 40)', `SELECT VALUE n FROM Person WHERE n = 3 OR ${ors}`],
  ['10,000 nested parentheses', `SELECT VALUE ${'('.repeat(10_000)}1${')'.repeat(10_000)} FROM Person`],
  ['`1d3000000` + 1', "SELECT VALUE `1d3000000` + 1 FROM Person WHERE GovId = 'G1'"],
  [
    "LIKE '%a%a%a%a%a%b' over 100 chars",
    `SELECT VALUE '${'a'.repeat(100)}' LIKE '%a%a%a%a%a%b' FROM Person WHERE GovId = 'G1'`,
  ],
];
for (const [name, s] of cases) {
  const runs = [] as number[];
  let answer = '';
  for (let i = 0; i < 5; i++) {
    const r = await exec(s);
    runs.push(r.ms);
    answer = r.answer;
  }
  runs.sort((a, b) => a - b);
  console.log(
    `${name.padEnd(36)} ${answer.padEnd(20)} median ${runs[2].toFixed(1)} ms, max ${runs[4].toFixed(1)} ms (5 runs)`,
  );
}
// Another client's statement while a 40^5-row join runs into its budget.
for (let i = 0; i < 3; i++) {
  const long = exec('SELECT VALUE COUNT(*) FROM Person a, Person b, Person c, Person d, Person e');
  await new Promise((r) => setTimeout(r, 300));
  const sent = performance.now();
  const quick = await exec("SELECT VALUE 1 FROM Person WHERE GovId = 'G1'", other);
  const waited = performance.now() - sent;
  const l = await long;
  console.log(
    `budget: long join ${l.answer} after ${l.ms.toFixed(0)} ms; other client's session + SELECT 1, sent 300 ms into it, answered after ${waited.toFixed(0)} ms (${quick.answer})`,
  );
}
console.log(
  `pid before ${pid}, engine alive after: ${(() => {
    try {
      process.kill(pid, 0);
      return true;
    } catch {
      return false;
    }
  })()}`,
);
c.destroy();
other.destroy();
control.destroy();
await engine.stop();
