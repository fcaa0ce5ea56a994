/**
 * Runs PartiQL on an in-process ledger of the local QLDB engine, one transaction per call, and gives
 * back what QLDB would send: each result value as Ion text, so int vs decimal vs float, timestamps'
 * precision, annotations and typed nulls are all visible in the assertions.
 */
import { dom, dumpText } from 'ion-js';
import { QldbError } from '../../targets/qldb/engine/errors';
import { Ledger, type Transaction, toIon } from '../../targets/qldb/engine/ledger';
import { parseStatement } from '../../targets/qldb/engine/partiql';

let transactions = 0;

export class TestLedger {
  readonly ledger = new Ledger('partiql');

  begin(): Transaction {
    transactions += 1;
    return this.ledger.begin(`txn${transactions}`, Date.now(), new Uint8Array(32));
  }

  /** Parameters: plain JS values, or Ion text wrapped with ion(). */
  exec(txn: Transaction, text: string, ...params: unknown[]): string[] {
    const values = params.map((p) => (p instanceof IonParam ? (dom.load(p.text) as dom.Value) : toIon(p)));
    return this.ledger.execute(txn, parseStatement(text), values).map((v) => dumpText(v));
  }

  /** One statement in its own committed transaction. */
  run(text: string, ...params: unknown[]): string[] {
    const txn = this.begin();
    const out = this.exec(txn, text, ...params);
    this.ledger.commit(txn, Date.now());
    return out;
  }

  /** The QLDB error a statement is refused with (its code and message). */
  refusal(text: string, ...params: unknown[]): { code: string; message: string } {
    try {
      this.run(text, ...params);
    } catch (err) {
      if (err instanceof QldbError) return { code: err.code, message: err.message };
      throw err;
    }
    throw new Error(`expected ${text} to be refused`);
  }
}

export class IonParam {
  constructor(readonly text: string) {}
}

/** A parameter given as Ion text (a decimal, a timestamp, a typed null, an annotation ...). */
export const ion = (text: string) => new IonParam(text);

/** A ledger with the developer guide's sample tables: VehicleRegistration and Vehicle. */
export function sampleLedger(): TestLedger {
  const t = new TestLedger();
  t.run('CREATE TABLE VehicleRegistration');
  t.run('CREATE TABLE Vehicle');
  t.run('CREATE INDEX ON VehicleRegistration (VIN)');
  t.run('CREATE INDEX ON Vehicle (VIN)');
  t.run(
    `INSERT INTO VehicleRegistration << {
      'VIN': '1N4AL11D75C109151', 'LicensePlateNumber': 'LEWISR261LL', 'State': 'WA', 'City': 'Seattle',
      'PendingPenaltyTicketAmount': 90.25, 'ValidFromDate': \`2017-08-21T\`, 'ValidToDate': \`2020-05-11T\`,
      'Owners': { 'PrimaryOwner': { 'PersonId': '294jJ3YUoH1IEEm8GSabOs' },
                  'SecondaryOwners': [ { 'PersonId': '5Ufgdlnj06gF5CWcOIu64s' } ] } },
    { 'VIN': 'KM8SRDHF6EU074761', 'LicensePlateNumber': 'CA762X', 'State': 'WA', 'City': 'Kent',
      'PendingPenaltyTicketAmount': 130.75, 'ValidFromDate': \`2017-09-14T\`, 'ValidToDate': \`2020-06-25T\`,
      'Owners': { 'PrimaryOwner': { 'PersonId': 'IN7MvYtUjkp1GMZu0F6CG9' }, 'SecondaryOwners': [] } } >>`,
  );
  t.run(
    `INSERT INTO Vehicle << { 'VIN': '1N4AL11D75C109151', 'Type': 'Sedan', 'Year': 2011, 'Make': 'Audi', 'Model': 'A5', 'Color': 'Silver' },
      { 'VIN': 'KM8SRDHF6EU074761', 'Type': 'Sedan', 'Year': 2015, 'Make': 'Tesla', 'Model': 'Model S', 'Color': 'Blue' } >>`,
  );
  return t;
}
