import type { AddressInfo } from 'node:net';
import dynalite from 'dynalite';

export interface TestEngine {
  readonly endpoint: string;
  stop(): Promise<void>;
}

/** A real local DynamoDB engine for handler tests. */
export async function startTestEngine(): Promise<TestEngine> {
  const server = dynalite({ createTableMs: 0, deleteTableMs: 0, updateTableMs: 0 });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
  const { port } = server.address() as AddressInfo;
  return {
    endpoint: `http://127.0.0.1:${port}`,
    stop: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
