/**
 * DynamoDB locally: dynalite (default) or Amazon DynamoDB Local, one table per template table.
 * Tables and items live on files (dynalite's LevelDB, DynamoDB Local's SQLite), in --data or else
 * in the lab's run data (memory-backed, removed at stop), so a restarted engine has them all.
 */

import { engineDataDir } from '../../local/run-dir';
import { type LocalTarget, localName, withEngine } from '../../local/targets/types';
import { createTable, type Engine, startEngine, type TableSchema, tableSchemaOf } from './engine';
import { ENGINE_KINDS, type EngineKind } from './engine-types';
import { dynamoDbHealth } from './health';

export const dynamodbTarget: LocalTarget = {
  // dynalite is an npm dependency; DynamoDB Local (--engine dynamodb-local) says what it lacks at start.
  findEngine: () => ({ found: true, source: 'dynalite (npm package)' }),
  async start(opts) {
    const { dataDir, removeData } = await engineDataDir(opts, 'dynamodb');
    const kind = (opts.engine ?? ENGINE_KINDS[0]) as EngineKind;
    const idleTimeoutS = opts.idleTimeoutS;
    if (kind === 'dynamodb-local' && idleTimeoutS !== undefined)
      opts.log(`[dynamodb-local] keeps its own idle timeout: it has no option for ${idleTimeoutS} s`);
    let engine: Engine;
    try {
      engine = await startEngine({ kind, dataDir, idleTimeoutS, log: opts.log });
    } catch (error) {
      await removeData();
      throw error;
    }
    // Each table as the template declares it: keys, attributes and indexes (the query's GSI).
    const schemas = new Map<string, TableSchema>(
      Object.entries(opts.assembly.templates).flatMap(([stack, t]) =>
        Object.entries(t.Resources)
          .filter(([, r]) => r.Type === 'AWS::DynamoDB::Table')
          .map(([id, r]): [string, TableSchema] => [localName(stack, id), tableSchemaOf(r.Properties)]),
      ),
    );
    const tables = [...schemas.keys()];
    const createAll = async () => {
      for (const [table, schema] of schemas) await createTable(engine.endpoint, table, schema);
    };
    await createAll();
    return withEngine(() => engine, {
      description: engine.kind,
      ...(kind === 'dynamodb-local'
        ? {
            notice:
              'DynamoDB Local listens on every interface (it has no bind-address option): others on this network reach it while the lab runs; the default engine listens on 127.0.0.1 only',
          }
        : {}),
      tables,
      nameOf: (stack, id, type) => (type === 'AWS::DynamoDB::Table' ? localName(stack, id) : undefined),
      functionEnv: (model) => ({ AWS_ENDPOINT_URL_DYNAMODB: model.url }),
      clientEnv: (model) => ({ AWS_ENDPOINT_URL_DYNAMODB: model.url }),
      health: (signal) => dynamoDbHealth(engine.endpoint, signal),
      async seedStories(stories, signal) {
        const { seedDynamoDb } = await import('./seed-stories');
        await seedDynamoDb(engine.endpoint, tables, stories, signal);
      },
      async restart() {
        await engine.stop();
        engine = await startEngine({ kind, port: engine.port, dataDir, idleTimeoutS, log: opts.log });
        await createAll();
      },
      async stop() {
        await engine.stop();
        await removeData();
      },
    });
  },
};
