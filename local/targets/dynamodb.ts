/** DynamoDB locally: dynalite (default) or Amazon DynamoDB Local, one table per template table. */
import { join } from 'node:path';
import { createTable, type Engine, startEngine } from '../engines';
import { type LocalDatabase, type LocalTarget, localName } from './types';

export const dynamodbTarget: LocalTarget = {
  async start(opts) {
    const dataDir = opts.dataDir && join(opts.dataDir, 'dynamodb');
    const kind = opts.engine ?? 'dynalite';
    let engine: Engine = await startEngine({ kind, dataDir, log: opts.log });
    const tables = Object.entries(opts.assembly.templates).flatMap(([stack, t]) =>
      Object.entries(t.Resources)
        .filter(([, r]) => r.Type === 'AWS::DynamoDB::Table')
        .map(([id]) => localName(stack, id)),
    );
    const createAll = async () => {
      for (const table of tables) await createTable(engine.endpoint, table);
    };
    await createAll();
    const db: LocalDatabase = {
      get description() {
        return engine.kind;
      },
      get endpoint() {
        return engine.endpoint;
      },
      get upstreamPort() {
        return engine.port;
      },
      get pid() {
        return engine.pid;
      },
      tables,
      nameOf: (stack, id, type) => (type === 'AWS::DynamoDB::Table' ? localName(stack, id) : undefined),
      functionEnv: (model) => ({ AWS_ENDPOINT_URL_DYNAMODB: model.url }),
      async restart() {
        await engine.stop();
        engine = await startEngine({ kind, port: engine.port, dataDir, log: opts.log });
        await createAll();
      },
      stop: () => engine.stop(),
    };
    return db;
  },
};
