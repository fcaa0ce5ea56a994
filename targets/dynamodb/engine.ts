/**
 * Starts and stops a local DynamoDB engine for the latency lab: dynalite (Node, LevelDB) or Amazon
 * DynamoDB Local (Java, SQLite). Each runs as a child process of its own, reachable on 127.0.0.1.
 * Used by the tests, `npm run local` and `npm run load`.
 */

import { startDynalite } from './dynalite';
import { startDynamoDbLocal } from './dynamodb-local';
import { ENGINE_KINDS, type Engine, type StartEngineOptions } from './engine-types';

export {
  createTable,
  GOV_ID_KEY_ONLY,
  LOCAL_CREDENTIALS,
  LOCAL_REGION,
  localClientConfig,
  type TableSchema,
  tableSchemaOf,
} from './create-table';
export { dynamoDbLocalInstall, FETCH_SCRIPT } from './dynamodb-local';
export {
  ENGINE_KINDS,
  type Engine,
  type EngineKind,
  type StartEngineOptions,
} from './engine-types';

export async function startEngine(opts: StartEngineOptions): Promise<Engine> {
  validate(opts);
  switch (opts.kind) {
    case 'dynalite':
      return startDynalite(opts);
    case 'dynamodb-local':
      return startDynamoDbLocal(opts);
  }
}

// Options also come from CLI flags and env in the scripts, so check them at run time too.
function validate(opts: StartEngineOptions): void {
  const kind: unknown = opts?.kind;
  if (!(ENGINE_KINDS as readonly unknown[]).includes(kind)) {
    throw new Error(
      `startEngine: unknown engine kind ${JSON.stringify(kind)}; expected one of: ${ENGINE_KINDS.join(', ')}`,
    );
  }
  const { port, dataDir } = opts;
  if (port !== undefined && !(Number.isInteger(port) && port >= 0 && port <= 65_535)) {
    throw new Error(`startEngine: port must be an integer from 0 to 65535 (0 = any free port), got ${port}`);
  }
  if (dataDir !== undefined && (typeof dataDir !== 'string' || dataDir === '')) {
    throw new Error(`startEngine: dataDir must be a non-empty path, got ${JSON.stringify(dataDir)}`);
  }
}
