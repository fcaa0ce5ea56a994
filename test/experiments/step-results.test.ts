/**
 * A finished step's calls as a definition reads them (experiments/step-results.ts): the phase's
 * own calls from timings.jsonl, and the uncounted warm-up before its gap from
 * warmup-timings.jsonl when asked (provisioned-idle's request before the gap).
 */
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import type { TimingLine } from '../../core/timing.mjs';
import { provisionedIdle } from '../../experiments/definitions/provisioned-idle';
import { readStepView } from '../../experiments/step-results';
import { tempDir } from '../report/report-fixture';

const root = tempDir('step-results');
const dir = join(root, 'step');
afterAll(() => rmSync(root, { recursive: true, force: true }));

const line = (at: number, dbMs: number, newConnection: boolean): TimingLine => ({
  at,
  target: 'dynamodb',
  variant: 'on',
  phase: 'get',
  status: 200,
  clientMs: 5,
  govId: 'g-1',
  timing: { dbMs, newConnection, dbRequests: 1, coldStart: false, initType: 'provisioned-concurrency' },
});
const write = (name: string, lines: readonly TimingLine[]) =>
  writeFileSync(join(dir, name), `${lines.map((l) => JSON.stringify(l)).join('\n')}\n`);

describe('readStepView', () => {
  it('gives the phase’s own calls, and its warm-up’s only when asked', () => {
    mkdirSync(dir, { recursive: true });
    write('timings.jsonl', [line(70_000, 21, false)]);
    write('warmup-timings.jsonl', [line(1_000, 90, true)]);
    const [plan] = provisionedIdle.plan({ quick: true, where: 'local', targets: ['dynamodb'] });
    const view = readStepView(plan, dir, [], 1, undefined);
    expect(view.calls({ target: 'dynamodb', phase: 'get' }).map((c) => c.dbMs)).toEqual([21]);
    expect(view.calls({ target: 'dynamodb', phase: 'get', warmUp: true }).map((c) => c.dbMs)).toEqual([90]);
    expect(view.calls({ target: 'dynamodb', phase: 'get', warmUp: false }).map((c) => c.at)).toEqual([
      70_000,
    ]);
  });

  it('reads each function’s call at init from its prewarm line', () => {
    mkdirSync(dir, { recursive: true });
    writeFileSync(
      join(dir, 'lambda-logs.log'),
      [
        '[dynamodb-get-keepalive-on] INIT_START Runtime Version: nodejs:24.v12',
        '[dynamodb-get-keepalive-on] 2026-11-28T17:00:00.000Z\tundefined\tINFO\tprewarm: DynamoDB connection opened at init in 312.500 ms',
        '[dynamodb-get-keepalive-off] prewarm: DynamoDB connection opened at init in 298.250 ms',
        '[dynamodb-create-keepalive-on] prewarm: DynamoDB connection opened at init in 99.000 ms',
        '[dynamodb-get-keepalive-on] prewarm: DynamoDB connection not opened at init, carrying on: Error: x',
      ].join('\n'),
    );
    const [plan] = provisionedIdle.plan({ quick: true, where: 'local', targets: ['dynamodb'] });
    const view = readStepView(plan, dir, [], 1, undefined);
    expect(view.initCalls?.('dynamodb', 'on', 'get')).toEqual([312.5]);
    expect(view.initCalls?.('dynamodb', 'off', 'get')).toEqual([298.25]);
    expect(view.initCalls?.('dynamodb', 'on', 'create')).toEqual([99]);
  });
});
