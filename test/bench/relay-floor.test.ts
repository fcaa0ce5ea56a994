/**
 * The bench's lab floor (host-overhead.ts startFloors): a bare HTTP + IPC relay whose child is
 * the lab's runtime worker running a function's own handler on an API Gateway event, frozen
 * between calls as the lab's environments are, called with a signed GET and answering with the
 * handler's response and its time (labFloorCall), so `npm run bench` can set the host's overhead
 * against the least any host costs running the same function. A floor that measured a failing
 * handler's path, a handler that got no proper event, or a child the host's freeze and thaw
 * did not reach, would print a wrong figure.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { startFloors } from '../../bench/host-overhead';

const dir = mkdtempSync(join(tmpdir(), 'relay-floor-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** A handler module in the temp folder; the variant runs it as the floor's child would. */
function handlerFile(name: string, body: string) {
  const file = join(dir, `${name}.mjs`);
  writeFileSync(file, `export const get = async (event, context) => {\n${body}\n};\n`);
  return { file, exportName: 'get', env: { PATH: process.env.PATH ?? '', LAB_MARK: 'from-env' } };
}

describe('startFloors with a handler', () => {
  it('runs the handler on a proxy event with the function environment and a live context, and yields the hops only', async () => {
    // 200 only if the event, the environment and the context are what a Lambda handler gets.
    const handler = handlerFile(
      'checks',
      `const ok = event.httpMethod === 'GET' && event.pathParameters.govId === 'G-1'
        && process.env.LAB_MARK === 'from-env' && context.getRemainingTimeInMillis() > 9000;
       await new Promise((r) => setTimeout(r, 1000));
       return { statusCode: ok ? 200 : 400, body: '{}' };`,
    );
    const floors = await startFloors(0, 'G-1', [{ sized: true, handler }]);
    try {
      const extra = await floors.all[0].call();
      // The handler's second is subtracted: what is left is the relay's hops. Not a speed check:
      // an unsubtracted figure would hold the whole second, a doubly subtracted one be negative.
      expect(extra).toBeGreaterThanOrEqual(0);
      expect(extra).toBeLessThan(1000);
    } finally {
      await floors.close();
    }
  });

  it("refuses a handler's error answer rather than timing its path", async () => {
    const floors = await startFloors(0, 'G-1', [
      { handler: handlerFile('fails', `return { statusCode: 500, body: '{}' };`) },
    ]);
    try {
      await expect(floors.all[0].call()).rejects.toThrow(/handler answered 500/);
    } finally {
      await floors.close();
    }
  });

  it('answers a call whose handler throws, as an error the caller refuses', async () => {
    const floors = await startFloors(0, 'G-1', [
      { handler: handlerFile('throws', `throw new Error('boom');`) },
    ]);
    try {
      await expect(floors.all[0].call()).rejects.toThrow(/handler answered 500/);
    } finally {
      await floors.close();
    }
  });

  it('answers a call whose child dies mid-call, as an error the caller refuses, instead of hanging', async () => {
    const floors = await startFloors(0, 'G-1', [{ handler: handlerFile('exits', 'process.exit(3);') }]);
    try {
      await expect(floors.all[0].call()).rejects.toThrow(/handler answered 502/);
      // And every later call too: the child is gone.
      await expect(floors.all[0].call()).rejects.toThrow(/handler answered 502/);
    } finally {
      await floors.close();
    }
  });

  it('fails the start, with the child gone, when the bundle cannot load', async () => {
    const missing = {
      file: join(dir, 'absent.mjs'),
      exportName: 'get',
      env: { PATH: process.env.PATH ?? '' },
    };
    await expect(startFloors(0, 'G-1', [{ handler: missing }])).rejects.toThrow(/could not load/);
  });

  it('freezes its child between calls and thaws it for each, as the host does, where cgroups allow', async () => {
    const floors = await startFloors(0, 'G-1', [
      {
        handler: handlerFile('frozen', `return { statusCode: 200, body: '{}' };`),
        share: { memoryMb: 128 },
        freeze: true,
      },
    ]);
    try {
      for (let i = 0; i < 3; i++) {
        await floors.all[0].call();
        // Long past the freeze's 1 ms wait, so the next call finds the child frozen.
        await new Promise((r) => setTimeout(r, 100));
      }
      if (floors.unshared === undefined) {
        // The first call found it running (just started); each later one thawed it.
        expect(floors.all[0].thawMs).toHaveLength(2);
      } else {
        // No cgroups here: nothing to freeze with, and the bench says why.
        expect(floors.all[0].thawMs).toHaveLength(0);
      }
    } finally {
      await floors.close();
    }
  });
});
