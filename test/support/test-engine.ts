import { createTable, type EngineKind, startEngine } from '../../local/engines';

export interface TestEngine {
  readonly endpoint: string;
  stop(): Promise<void>;
}

/** A real local DynamoDB engine with the lab's table, for handler tests. */
export async function startTestEngine(kind: EngineKind, table: string): Promise<TestEngine> {
  const engine = await startEngine({ kind });
  try {
    await createTable(engine.endpoint, table);
  } catch (e) {
    await engine.stop();
    throw e;
  }
  return engine;
}
