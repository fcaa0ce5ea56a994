/**
 * The engine bench's plain-dynalite child: started, it answers; a child that dies or prints
 * something else before its port fails the start with the child gone, instead of waiting for ever.
 */
import { DynamoDBClient, ListTablesCommand } from '@aws-sdk/client-dynamodb';
import { describe, expect, it } from 'vitest';
import { startPlainDynalite } from '../../bench/dynamodb-engines';
import { localClientConfig } from '../../local/engines';

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
