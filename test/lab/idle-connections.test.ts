/**
 * Connections that age, in the real local lab (dynalite behind the network model, the
 * synthesized DynamoDB bundles on Lambda's Node):
 * - engines close connections idle longer than idleTimeoutS: with 1 s, a warm environment's
 *   first call after a 2 s gap opens a new connection (newConnection true, coldStart false);
 *   right after a call (a 0 s gap) it does not;
 * - prewarmConnection: a fresh environment's first invocation finds the connection its init
 *   opened (newConnection false); without the flag it opens one (true).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type RunningLab, startLab } from '../../local/lab';
import { person, rawRequest } from '../support/lab-http';

interface TimingBlock {
  readonly dbMs: number;
  readonly newConnection: boolean;
  readonly coldStart: boolean;
}

const ON = '/dynamodb/keepalive-on/person';
const OFF = '/dynamodb/keepalive-off/person';

async function create(lab: RunningLab, base: string, govId: string): Promise<TimingBlock> {
  const r = await rawRequest(lab, 'POST', base, JSON.stringify(person(govId)));
  expect(r.status, r.text).toBe(201);
  return r.json?.timing as TimingBlock;
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe('engines close idle connections after idleTimeoutS (1 s)', () => {
  let lab: RunningLab;
  beforeAll(async () => {
    // One call each is compared below: the profile whose every round trip is a fixed 8 ms, so a
    // drawn service time (the default profile's) cannot outweigh the new connection's round trips.
    lab = await startLab({ port: 0, idleTimeoutS: 1, profile: 'uniform-8ms' });
  }, 180_000);
  afterAll(async () => {
    await lab?.stop();
  });

  it('without prewarm the first invocation opens the connection', async () => {
    expect(await create(lab, ON, 'IDLE-1')).toMatchObject({ coldStart: true, newConnection: true });
  });

  it('a 0 s gap: the warm environment reuses its connection', async () => {
    expect(await create(lab, ON, 'IDLE-2')).toMatchObject({ coldStart: false, newConnection: false });
  });

  it('a 2 s gap: the same warm environment finds it closed and opens a new one, then reuses that', async () => {
    await sleep(2_000);
    const after = await create(lab, ON, 'IDLE-3');
    expect(after).toMatchObject({ coldStart: false, newConnection: true });
    const next = await create(lab, ON, 'IDLE-4');
    expect(next).toMatchObject({ coldStart: false, newConnection: false });
    // What the gap cost: a new connection's round trips against one.
    expect(after.dbMs).toBeGreaterThan(next.dbMs);
  });
});

describe('prewarmConnection=true', () => {
  let lab: RunningLab;
  beforeAll(async () => {
    lab = await startLab({ port: 0, context: { prewarmConnection: 'true' } });
  }, 180_000);
  afterAll(async () => {
    await lab?.stop();
  });

  it('a fresh environment’s first invocation finds the connection its init opened', async () => {
    expect(await create(lab, ON, 'WARM-1')).toMatchObject({ coldStart: true, newConnection: false });
    expect(await create(lab, ON, 'WARM-2')).toMatchObject({ coldStart: false, newConnection: false });
  });

  it('keep-alive off still opens one per call: there is nothing to keep', async () => {
    expect(await create(lab, OFF, 'WARM-3')).toMatchObject({ coldStart: true, newConnection: true });
  });
});
