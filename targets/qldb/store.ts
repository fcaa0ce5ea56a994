/**
 * QLDB target (Amazon QLDB reached end of support on 2025-07-31; kept behind the
 * `targets` flag, see docs/deploying.md). Each transaction costs several SendCommand round trips,
 * which is why QLDB latency is a multiple of DynamoDB's: the driver's pool keeps its
 * session, so a warm get is 3 (start transaction, execute, commit) and a create with its
 * SELECT + INSERT is 4; only a new session adds StartSession.
 */
import type { QLDBSessionClientConfig } from '@aws-sdk/client-qldb-session';
import type { NodeHttpHandlerOptions } from '@smithy/node-http-handler';
import { QldbDriver, RetryConfig } from 'amazon-qldb-driver-nodejs';
import type { dom } from 'ion-js';
import { BillMeter } from '../../lambda/shared/bill-meter';
import { requireEnv } from '../../lambda/shared/env';
import { labHttpFromEnv, MAX_ATTEMPTS } from '../../lambda/shared/http-client';
import { CREATED_AT, PERSON_FIELDS, type Person } from '../../lambda/shared/person';
import type { PersonStore } from '../../lambda/shared/person-store';

/** Only letters, digits and '_' may be spliced into PartiQL as a table name. */
export function assertTableName(name: string): string {
  if (!/^[A-Za-z_][A-Za-z0-9_]{0,127}$/.test(name))
    throw new Error(`invalid QLDB table name ${JSON.stringify(name)}`);
  return name;
}

export function createQldbDriver(
  ledgerName: string,
  httpOptions: NodeHttpHandlerOptions,
  clientConfig: QLDBSessionClientConfig = {},
): QldbDriver {
  // One retry on OCC conflicts or expired sessions, like the SDK clients' MAX_ATTEMPTS.
  return new QldbDriver(
    ledgerName,
    { maxAttempts: MAX_ATTEMPTS, ...clientConfig },
    httpOptions,
    undefined,
    new RetryConfig(MAX_ATTEMPTS - 1),
  );
}

function rowToPerson(row: dom.Value): Person {
  const out: Record<string, string> = {};
  for (const f of PERSON_FIELDS) {
    const v = row.get(f);
    if (v !== null) out[f] = v.stringValue() ?? '';
  }
  return out as unknown as Person;
}

/** A Person as stored: its fields and the internal creation time the query sorts by. */
const stored = (person: Person) => ({ ...person, [CREATED_AT]: Date.now() });

/** The creation time of a row; a document written before the field existed sorts last. */
function createdAt(row: dom.Value): number {
  const v = row.get(CREATED_AT);
  return v === null || v.isNull() ? 0 : (v.numberValue() ?? 0);
}

/** How long a call waits for transactions earlier calls abandoned (the driver's own bounds end them sooner). */
export const SETTLE_BOUND_MS = 5_000;

/**
 * The driver takes no AbortSignal; racing it keeps the handler's answer within the deadline.
 * The driver's transaction goes on after the race is lost, so it is kept in `abandoned` until
 * it ends, for `settle` to wait on.
 */
function withSignal<T>(signal: AbortSignal, work: Promise<T>, abandoned: Set<Promise<unknown>>): Promise<T> {
  if (signal.aborted) return Promise.reject(signal.reason);
  let done = false;
  const tracked: Promise<unknown> = work.then(
    () => undefined,
    () => undefined,
  );
  void tracked.then(() => {
    done = true;
    abandoned.delete(tracked);
  });
  signal.addEventListener('abort', () => done || abandoned.add(tracked), { once: true });
  return new Promise<T>((resolve, reject) => {
    const onAbort = () => reject(signal.reason);
    signal.addEventListener('abort', onAbort, { once: true });
    work.then(
      (v) => {
        signal.removeEventListener('abort', onAbort);
        resolve(v);
      },
      (e) => {
        signal.removeEventListener('abort', onAbort);
        reject(e);
      },
    );
  });
}

/**
 * Ends a transaction whose caller has stopped waiting: throwing inside executeLambda makes the
 * driver send AbortTransaction instead of going on to the next statement or the commit, so a
 * create past its deadline never writes.
 */
function step(signal: AbortSignal): void {
  signal.throwIfAborted();
}

async function settle(abandoned: ReadonlySet<Promise<unknown>>): Promise<void> {
  if (abandoned.size === 0) return;
  let timer: NodeJS.Timeout | undefined;
  await Promise.race([
    Promise.allSettled([...abandoned]),
    new Promise((r) => {
      timer = setTimeout(r, SETTLE_BOUND_MS);
    }),
  ]);
  clearTimeout(timer);
}

/** The I/O counts a QLDB session command's result carries (ExecuteStatement, FetchPage, CommitTransaction). */
interface ConsumedIOs {
  readonly ReadIOs?: number;
  readonly WriteIOs?: number;
}
type SessionOutput = Partial<Record<string, { readonly ConsumedIOs?: ConsumedIOs } | undefined>>;
interface SessionClient {
  send(command: unknown, ...rest: unknown[]): Promise<SessionOutput>;
}

/** The commands one SendCommand carries: every field of its input but the session token. */
export function commandNames(command: unknown): string[] {
  const input = (command as { input?: unknown } | null)?.input;
  if (typeof input !== 'object' || input === null) return [];
  return Object.entries(input)
    .filter(([name, v]) => name !== 'SessionToken' && v !== undefined)
    .map(([name]) => name);
}

/**
 * Watches the driver's own session client (a private field: the driver takes no middleware):
 * counts each SendCommand by the command it carries (StartSession, StartTransaction,
 * ExecuteStatement, ...), which the HTTP request count cannot tell apart, and adds the I/Os
 * QLDB billed as each result reports them (the driver shows a statement's read I/Os but never
 * the commit's write I/Os). Wrapping the instance's send keeps whatever the prototype's is.
 */
function watchSession(driver: QldbDriver, meter: BillMeter, commands: Record<string, number>): void {
  const client = (driver as unknown as { _qldbClient?: SessionClient })._qldbClient;
  if (client === undefined || typeof client.send !== 'function') return;
  const send = client.send;
  client.send = async (command: unknown, ...rest: unknown[]) => {
    for (const name of commandNames(command)) commands[name] = (commands[name] ?? 0) + 1;
    const out = await send.call(client, command, ...rest);
    for (const result of Object.values(out ?? {})) {
      const ios = typeof result === 'object' && result !== null ? result.ConsumedIOs : undefined;
      if (ios === undefined) continue;
      if (typeof ios.ReadIOs === 'number') meter.add('qldb.readIos', ios.ReadIOs, 'measured');
      if (typeof ios.WriteIOs === 'number') meter.add('qldb.writeIos', ios.WriteIOs, 'measured');
    }
    return out;
  };
}

export function createQldbStore(
  driver: QldbDriver,
  tableName: string,
  counters: Pick<PersonStore, 'socketsOpened' | 'requestsSent'>,
): PersonStore {
  const table = assertTableName(tableName);
  // Transactions of this store whose caller stopped waiting; they end at their next step.
  const abandoned = new Set<Promise<unknown>>();
  const race = <T>(signal: AbortSignal, work: Promise<T>) => withSignal(signal, work, abandoned);
  const meter = new BillMeter();
  const commands: Record<string, number> = {};
  watchSession(driver, meter, commands);
  return {
    name: 'QLDB',
    billed: () => meter.snapshot(),
    commandsSent: () => ({ ...commands }),
    socketsOpened: counters.socketsOpened,
    requestsSent: counters.requestsSent,
    settle: () => settle(abandoned),
    async prewarm(signal) {
      // A session (kept in the driver's pool) and one read of nothing: what every operation may do.
      await race(
        signal,
        driver.executeLambda((txn) => txn.execute(`SELECT GovId FROM ${table} WHERE GovId = ?`, '')),
      );
    },
    create(person, signal) {
      return race(
        signal,
        driver.executeLambda(async (txn) => {
          // The SELECT makes the transaction's read set include the GovId, so two racing
          // creates conflict (OCC) instead of both inserting.
          const existing = await txn.execute(`SELECT GovId FROM ${table} WHERE GovId = ?`, person.GovId);
          step(signal);
          if (existing.getResultList().length > 0) return 'exists' as const;
          await txn.execute(`INSERT INTO ${table} ?`, stored(person));
          step(signal);
          return 'created' as const;
        }),
      );
    },
    get(govId, signal) {
      return race(
        signal,
        driver.executeLambda(async (txn) => {
          const rows = (await txn.execute(`SELECT * FROM ${table} WHERE GovId = ?`, govId)).getResultList();
          step(signal);
          return rows.length > 0 ? rowToPerson(rows[0]) : undefined;
        }),
      );
    },
    overwrite(person, signal) {
      return race(
        signal,
        driver.executeLambda(async (txn) => {
          // QLDB's UPDATE sets elements, it cannot replace a document: DELETE + INSERT in one
          // transaction does, atomically. The DELETE's result says whether there was one.
          const deleted = await txn.execute(`DELETE FROM ${table} WHERE GovId = ?`, person.GovId);
          step(signal);
          if (deleted.getResultList().length === 0) return 'missing' as const;
          await txn.execute(`INSERT INTO ${table} ?`, stored(person));
          step(signal);
          return 'replaced' as const;
        }),
      );
    },
    update(govId, changes, signal) {
      return race(
        signal,
        driver.executeLambda(async (txn) => {
          // The SELECT both answers 404 without writing and gives back the Person to return.
          const rows = (await txn.execute(`SELECT * FROM ${table} WHERE GovId = ?`, govId)).getResultList();
          step(signal);
          if (rows.length === 0) return undefined;
          await txn.execute(`UPDATE ${table} SET Address = ? WHERE GovId = ?`, changes.Address, govId);
          step(signal);
          return { ...rowToPerson(rows[0]), Address: changes.Address };
        }),
      );
    },
    query(govIdType, limit, signal) {
      return race(
        signal,
        driver.executeLambda(async (txn) => {
          // QLDB has no ORDER BY or LIMIT: the indexed SELECT reads every Person of the type
          // (paged, one FetchPage round trip per page) and the newest are picked here, so the
          // cost grows with the table, not with `limit`.
          const rows = (
            await txn.execute(`SELECT * FROM ${table} WHERE GovIdType = ?`, govIdType)
          ).getResultList();
          step(signal);
          return rows
            .map((row) => ({ row, at: createdAt(row) }))
            .sort((a, b) => b.at - a.at)
            .slice(0, limit)
            .map(({ row }) => rowToPerson(row));
        }),
      );
    },
  };
}

export function qldbStoreFromEnv(env: NodeJS.ProcessEnv = process.env): PersonStore {
  const ledgerName = requireEnv('LEDGER_NAME', env);
  const tableName = requireEnv('TABLE_NAME', env);
  const http = labHttpFromEnv(env);
  const driver = createQldbDriver(ledgerName, http.options);
  return createQldbStore(driver, tableName, http);
}
