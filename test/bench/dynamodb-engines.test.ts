/**
 * The engine bench's plain-dynalite child: started, it answers; a child that dies or prints
 * something else before its port fails the start with the child gone, instead of waiting for ever.
 * Its `-files` kind runs an engine on files in the run data, and removes them after.
 */

import { readdirSync } from 'node:fs';
import { DynamoDBClient, ListTablesCommand } from '@aws-sdk/client-dynamodb';
import { describe, expect, it } from 'vitest';
import { dynamodbEngines, startPlainDynalite } from '../../bench/dynamodb-engines';
import { dataRoot } from '../../local/run-dir';
import { localClientConfig } from '../../targets/dynamodb/engine';

const alive = (pid: number): boolean => {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
};

describe('startPlainDynalite', () => {
  it('starts dynalite, which answers ListTables, and stops it (twice is fine)', async () => {
    const engine = await startPlainDynalite();
    try {
      const client = new DynamoDBClient(localClientConfig(engine.endpoint));
      try {
        expect(await client.send(new ListTablesCommand({}))).toMatchObject({ TableNames: [] });
      } finally {
        client.destroy();
      }
    } finally {
      await engine.stop();
    }
    expect(alive(engine.pid)).toBe(false);
    await engine.stop();
  });

  it('fails when the child exits before it listens', async () => {
    await expect(startPlainDynalite('process.exit(7)')).rejects.toThrow(
      /plain dynalite exited \(code 7\) before it listened/,
    );
  });

  it('fails, and ends the child, when it prints something other than its port', async () => {
    const script = `console.log('not json ' + process.pid); setInterval(() => {}, 1000);`;
    const error = await startPlainDynalite(script).then(
      () => undefined,
      (e: unknown) => e as Error,
    );
    expect(error?.message).toMatch(/printed "not json \d+\\n" instead of its port/);
    expect(alive(Number(/not json (\d+)/.exec(error?.message ?? '')?.[1]))).toBe(false);
  });
});

describe('dynamodbEngines with an engine on files', () => {
  it('times dynalite on files in the run data beside dynalite in memory, and removes the files after', async () => {
    const benchData = () =>
      readdirSync(dataRoot())
        .filter((n) => n.startsWith(`lab-run-${process.pid}`))
        .flatMap((n) => {
          try {
            return readdirSync(`${dataRoot()}/${n}`).filter((f) => f.startsWith('bench-'));
          } catch {
            return [];
          }
        });
    const figures = await dynamodbEngines({
      kinds: ['dynalite', 'dynalite-files'],
      rounds: 0,
      requests: 5,
      warmup: 1,
    });
    expect(figures.map((f) => [f.kind, f.requestMs.put.length, f.requestMs.get.length])).toEqual([
      ['dynalite', 5, 5],
      ['dynalite-files', 5, 5],
    ]);
    expect(benchData()).toEqual([]);
  }, 60_000);
});
