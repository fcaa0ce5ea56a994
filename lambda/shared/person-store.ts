import type { UnitBasis } from './bill-meter';
import type { Person, PersonChanges } from './person';

/** A story of the news site's workload (news-top10): a Person, and how often it was read. */
export interface Story {
  readonly person: Person;
  readonly views: number;
}

/** How many stories top10 lists: the article's page showed its section's top 10. */
export const TOP_STORIES = 10;

/** What a database target offers the handlers. One implementation per database. */
export interface PersonStore {
  /** Human name used in error messages, e.g. "DynamoDB". */
  readonly name: string;
  /**
   * The whole call's deadline, for a database whose documented waits exceed the lab's
   * (Aurora's resume from auto-pause); its function's timeout must be longer. @default DB_DEADLINE_MS
   */
  readonly deadlineMs?: number;
  /** Writes once: 'exists' when the GovId is already there (nothing is overwritten). */
  create(person: Person, signal: AbortSignal): Promise<'created' | 'exists'>;
  get(govId: string, signal: AbortSignal): Promise<Person | undefined>;
  /** Replaces every field of an existing Person (a new creation time too): 'missing' when there is none. */
  overwrite(person: Person, signal: AbortSignal): Promise<'replaced' | 'missing'>;
  /** Changes the Address of an existing Person and returns it whole; undefined when there is none. */
  update(govId: string, changes: PersonChanges, signal: AbortSignal): Promise<Person | undefined>;
  /** The `limit` most recently created Persons of a GovIdType, newest first (maybe none). */
  query(govIdType: string, limit: number, signal: AbortSignal): Promise<Person[]>;
  /**
   * Reads a story and counts one view of it, in one atomic step; undefined when there is no such
   * Person (nothing is counted). An overwrite starts a story's count again; get and update keep
   * it. Absent on a target that serves no view (core/lab-functions.ts OPERATION_TARGETS).
   */
  view?(govId: string, signal: AbortSignal): Promise<Story | undefined>;
  /**
   * The TOP_STORIES most viewed stories, most first (ties in any order), read from an index;
   * a story never viewed is not listed. Absent where view is.
   */
  top10?(signal: AbortSignal): Promise<Story[]>;
  /**
   * Opens the connection with one cheap real call, at init when PREWARM_CONNECTION=on
   * (prewarm.ts). Absent where a store cannot (Redis). @default - no prewarm
   */
  prewarm?(signal: AbortSignal): Promise<void>;
  /**
   * Waits for work an earlier call left running after its caller stopped waiting (a QLDB
   * transaction past the deadline), so that work's requests are not counted as the next
   * call's. Bounded. @default - nothing is ever left running
   */
  settle?(): Promise<void>;
  /** Connections opened so far by this store's client (sockets on the HTTP agent, TCP connections). */
  socketsOpened(): number;
  /** Requests (HTTP) or commands (TCP protocols) sent so far, retries and handshakes included. */
  requestsSent(): number;
  /**
   * Round trips so far: the times the client sent and then waited for the database's answer
   * (TCP and TLS handshakes not counted: newConnection marks the calls that paid them).
   * @default requestsSent(): an HTTP request and an unpipelined Redis command are one each
   */
  roundTripsMade?(): number;
  /**
   * Protocol commands sent so far, by name (QLDB: StartSession, StartTransaction,
   * ExecuteStatement, CommitTransaction...), cumulative like requestsSent: a call's are the
   * difference. @default - the target's protocol has one kind of request
   */
  commandsSent?(): Readonly<Record<string, number>>;
  /**
   * Billed units so far (bill-meter.ts), cumulative like requestsSent: a call's are the
   * difference. @default - the target records none
   */
  billed?(): ReadonlyMap<string, { readonly quantity: number; readonly basis: UnitBasis }>;
}

/**
 * The database refused the request's data (a value out of its range, a constraint): the
 * request was bad, not the database. The handlers answer 400 naming the field, as validation
 * does, and nothing sends it again.
 */
export class InvalidInputError extends Error {
  override readonly name = 'InvalidInputError';
  constructor(
    message: string,
    /** The request's field the database refused, when it can be told. */
    readonly field?: string,
    options?: ErrorOptions,
  ) {
    super(message, options);
  }
}
