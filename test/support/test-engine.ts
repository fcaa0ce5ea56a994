import { createTable, type EngineKind } from '../../targets/dynamodb/engine';
import { PERSON_TABLE_SCHEMA } from '../../targets/dynamodb/person-table';
import { sharedEngine } from './shared-engines';

export { PERSON_TABLE_SCHEMA };

export interface TestEngine {
  readonly endpoint: string;
  stop(): Promise<void>;
}

/**
 * A real local DynamoDB engine with the lab's table, for handler tests: the run's shared engine
 * of this kind (shared-engines.ts) with the table under a name of the caller's own (tableOfItsOwn);
 * stop() leaves the engine to the run.
 */
export async function sharedTestEngine(kind: EngineKind, table: string): Promise<TestEngine> {
  const engine = await sharedEngine(kind);
  await createTable(engine.endpoint, table, PERSON_TABLE_SCHEMA);
  return { endpoint: engine.endpoint, stop: async () => {} };
}
