/**
 * The one cleanup helper startLab, runLoad and runExperiment stop what they started with: last
 * started first, each once however many callers ask, a failing stop not keeping the others
 * from running, and what starts while the run is being stopped stopped at once.
 */
import { describe, expect, it } from 'vitest';
import { Cleanup, withCleanup } from '../../core/cleanup';

describe('Cleanup', () => {
  it('stops last-added first, each once, though a stop fails and two callers ask', async () => {
    const cleanup = new Cleanup();
    const order: string[] = [];
    cleanup.add(() => order.push('log file'));
    cleanup.add(async () => {
      order.push('lab');
      throw new Error('the engine was already dead');
    });
    cleanup.add(() => order.push('sampler'));
    expect(cleanup.stopping).toBe(false);
    const first = cleanup.run();
    const second = cleanup.run();
    expect(cleanup.stopping).toBe(true);
    expect(second).toBe(first);
    await expect(first).resolves.toBeUndefined();
    await cleanup.run();
    expect(order).toEqual(['sampler', 'lab', 'log file']);
  });

  it('runs a stop added while it stops, and stops at once what is owned after', async () => {
    const cleanup = new Cleanup();
    const order: string[] = [];
    cleanup.add(() => order.push('first'));
    cleanup.add(async () => {
      order.push('second');
      cleanup.add(() => order.push('added meanwhile'));
    });
    expect(await cleanup.own(() => order.push('owned in time'))).toBe(true);
    const running = cleanup.run();
    expect(await cleanup.own(() => order.push('owned too late'))).toBe(false);
    await running;
    expect(order).toEqual(['owned in time', 'owned too late', 'second', 'added meanwhile', 'first']);
  });
});

describe('withCleanup', () => {
  it('runs the cleanup when the body returns and when it throws, and keeps the outcome', async () => {
    const stopped: string[] = [];
    await expect(
      withCleanup(async (c) => {
        c.add(() => stopped.push('returned'));
        return 42;
      }),
    ).resolves.toBe(42);
    await expect(
      withCleanup(async (c) => {
        c.add(() => stopped.push('threw'));
        throw new Error('the run failed');
      }),
    ).rejects.toThrow('the run failed');
    expect(stopped).toEqual(['returned', 'threw']);
  });
});
