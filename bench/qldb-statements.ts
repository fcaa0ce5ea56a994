/**
 * The local QLDB engine's own cost per statement: parse (uncached, as a statement's first run) and
 * execute, in-process, for the statements the QLDB article's workload sends (targets/qldb/store.ts)
 * against a table of `rows` people indexed on GovId. Each statement runs in a fresh transaction that
 * is never committed, so the table stays the same size. Figures are p50 microseconds.
 */
import { Ledger, toIon } from '../targets/qldb/engine/ledger';
import { parseStatement } from '../targets/qldb/engine/partiql';

export interface StatementCost {
  readonly statement: string;
  readonly parseUs: number;
  readonly executeUs: number;
}

const person = (i: number) => ({
  GovId: `G${i}`,
  GovIdType: i % 2 ? 'Passport' : 'Driver License',
  FirstName: 'Bench',
  LastName: 'Mark',
  DOB: '1990-01-01',
  Address: `${i} Main St`,
});

const ARTICLE_STATEMENTS: readonly (readonly [string, (i: number) => unknown[]])[] = [
  ['SELECT GovId FROM Person WHERE GovId = ?', (i) => [`G${i}`]],
  ['INSERT INTO Person ?', (i) => [{ ...person(i), GovId: `N${i}` }]],
  ['SELECT * FROM Person WHERE GovId = ?', (i) => [`G${i}`]],
  ['DELETE FROM Person WHERE GovId = ?', (i) => [`G${i}`]],
  ['UPDATE Person SET Address = ? WHERE GovId = ?', (i) => ['1 New St', `G${i}`]],
  ['SELECT * FROM Person WHERE GovIdType = ?', () => ['Passport']],
];

function p50(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.floor(s.length / 2)];
}

export function qldbStatementCost(runs = 2000, rows = 100): StatementCost[] {
  const ledger = new Ledger('bench');
  ledger.defineTable('Person', ['GovId']);
  for (let start = 0; start < rows; start += 40) {
    const txn = ledger.begin(`seed${start}`, Date.now(), new Uint8Array(32));
    for (let i = start; i < Math.min(rows, start + 40); i++) {
      ledger.execute(txn, parseStatement('INSERT INTO Person ?'), [toIon(person(i))]);
    }
    ledger.commit(txn, Date.now());
  }
  return ARTICLE_STATEMENTS.map(([statement, params]) => {
    const parse: number[] = [];
    const execute: number[] = [];
    for (let r = 0; r < runs; r++) {
      const t0 = performance.now();
      const parsed = parseStatement(statement);
      const t1 = performance.now();
      const txn = ledger.begin(`b${r}`, Date.now(), new Uint8Array(32));
      const values = params(r % rows).map(toIon);
      const t2 = performance.now();
      ledger.execute(txn, parsed, values);
      const t3 = performance.now();
      parse.push((t1 - t0) * 1000);
      execute.push((t3 - t2) * 1000);
    }
    return { statement, parseUs: p50(parse), executeUs: p50(execute) };
  });
}

if (import.meta.url === `file://${process.argv[1]}`) {
  for (const r of qldbStatementCost()) {
    console.log(
      `${r.statement.padEnd(48)} parse ${r.parseUs.toFixed(1)} us   execute ${r.executeUs.toFixed(1)} us`,
    );
  }
}
