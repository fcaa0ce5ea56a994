import { createTable, type EngineKind, startEngine } from '../../local/engines';
import { PERSON_TABLE_SCHEMA } from '../../local/engines/person-table';

export { PERSON_TABLE_SCHEMA };

export interface TestEngine {
  readonly endpoint: string;
  stop(): Promise<void>;
}

/** A real local DynamoDB engine with the lab's table, for handler tests. */
export async function startTestEngine(kind: EngineKind, table: string): Promise<TestEngine> {
  const engine = await startEngine({ kind });
  try {
    await createTable(engine.endpoint, table, PERSON_TABLE_SCHEMA);
  } catch (e) {
    await engine.stop();
    throw e;
  }
  return engine;
}
