import type { Person } from './person';

/** What a database target offers the handlers. One implementation per database. */
export interface PersonStore {
  /** Human name used in error messages, e.g. "DynamoDB". */
  readonly name: string;
  /** Writes once: 'exists' when the GovId is already there (nothing is overwritten). */
  create(person: Person, signal: AbortSignal): Promise<'created' | 'exists'>;
  get(govId: string, signal: AbortSignal): Promise<Person | undefined>;
  /** Sockets opened so far by this store's HTTP agent. */
  socketsOpened(): number;
}
