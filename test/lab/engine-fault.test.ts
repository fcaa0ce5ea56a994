import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, it } from 'vitest';
import { type RunningLab, startLab } from '../../local/lab';
import { describeFault, killEngineMidRun } from '../support/engine-fault';

const BASE = '/dynamodb/keepalive-on/person';

describe('the database engine killed mid-run (dynalite with --data)', () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'lab-fault-'));
  let lab: RunningLab;
  beforeAll(async () => {
    lab = await startLab({ port: 0, dataDir });
  }, 120_000);
  afterAll(async () => {
    await lab?.stop();
    rmSync(dataDir, { recursive: true, force: true });
  });

  it('answers a clear 503 within the timeout, serves again soon after restart, and loses no acknowledged write', async () => {
    const fault = await killEngineMidRun(lab, {
      target: 'dynamodb',
      base: BASE,
      label: 'DynamoDB',
      idPrefix: 'DDB',
    });
    console.log(describeFault('engine', fault));
  }, 120_000);
});
