/** The init's prewarm: only with PREWARM_CONNECTION=on, bounded, and never fatal. */
import { describe, expect, it } from 'vitest';
import type { PersonStore } from '../../lambda/shared/person-store';
import { PREWARM_TIME_PATTERN, PREWARM_TIMEOUT_MS, prewarmed } from '../../lambda/shared/prewarm';

function store(prewarm?: (signal: AbortSignal) => Promise<void>): PersonStore & { calls: AbortSignal[] } {
  const calls: AbortSignal[] = [];
  const never = () => Promise.reject(new Error('not in this test'));
  return {
    name: 'Fake',
    calls,
    create: never,
    get: never,
    overwrite: never,
    update: never,
    query: never,
    socketsOpened: () => 0,
    requestsSent: () => 0,
    ...(prewarm
      ? {
          prewarm: (signal: AbortSignal) => {
            calls.push(signal);
            return prewarm(signal);
          },
        }
      : {}),
  };
}

describe('prewarmed', () => {
  it('calls the store once with a bounded signal when PREWARM_CONNECTION=on, and not otherwise', async () => {
    const s = store(async () => {});
    const quiet = () => {};
    expect(await prewarmed(s, {}, quiet)).toBe(s);
    expect(await prewarmed(s, { PREWARM_CONNECTION: 'off' }, quiet)).toBe(s);
    expect(s.calls).toHaveLength(0);
    expect(await prewarmed(s, { PREWARM_CONNECTION: 'on' }, quiet)).toBe(s);
    expect(s.calls).toHaveLength(1);
    expect(s.calls[0].aborted).toBe(false);
    expect(PREWARM_TIMEOUT_MS).toBeLessThanOrEqual(2_000);
  });

  it('a successful prewarm logs its call’s time, which the experiments read', async () => {
    const lines: string[] = [];
    const s = store(() => new Promise((resolve) => setTimeout(resolve, 20)));
    expect(await prewarmed(s, { PREWARM_CONNECTION: 'on' }, (l) => lines.push(l))).toBe(s);
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatch(/^prewarm: Fake connection opened at init in \d+\.\d{3} ms$/);
    expect(Number(PREWARM_TIME_PATTERN.exec(lines[0])?.[1])).toBeGreaterThanOrEqual(15);
  });

  it('a failed prewarm logs one line and the init carries on', async () => {
    const lines: string[] = [];
    const s = store(() => Promise.reject(new Error('connect ECONNREFUSED 127.0.0.1:1')));
    expect(await prewarmed(s, { PREWARM_CONNECTION: 'on' }, (l) => lines.push(l))).toBe(s);
    expect(lines).toEqual([
      'prewarm: Fake connection not opened at init, carrying on: Error: connect ECONNREFUSED 127.0.0.1:1',
    ]);
  });

  it('a store that cannot prewarm (Redis) is left alone', async () => {
    const lines: string[] = [];
    const s = store();
    expect(await prewarmed(s, { PREWARM_CONNECTION: 'on' }, (l) => lines.push(l))).toBe(s);
    expect(lines).toEqual([]);
  });
});
