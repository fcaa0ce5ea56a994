import type { Person } from './person';

/** What a database target offers the handlers. One implementation per database. */
export interface PersonStore {
  /** Human name used in error messages, e.g. "DynamoDB". */
  readonly name: string;
  /** Writes once: 'exists' when the GovId is already there (nothing is overwritten). */
  create(person: Person, signal: AbortSignal): Promise<'created' | 'exists'>;
  get(govId: string, signal: AbortSignal): Promise<Person | undefined>;
  /** Connections opened so far by this store's client (sockets on the HTTP agent, TCP connections). */
  socketsOpened(): number;
  /** Requests (HTTP) or commands (TCP protocols) sent so far, retries and handshakes included. */
  requestsSent(): number;
}
