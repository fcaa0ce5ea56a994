import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { ensureSynth, isFresh } from '../../local/assembly/ensure-synth';
import { localSynthContext } from '../../local/lab';

describe('ensureSynth', () => {
  const dir = mkdtempSync(join(tmpdir(), 'lab-ensure-synth-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('lets two labs started at once with the same flags share one synth instead of failing', async () => {
    const outdir = join(dir, 'assembly');
    const context = localSynthContext({ keepAlive: 'on' });
    const [a, b] = await Promise.all([
      ensureSynth(outdir, context, () => {}),
      ensureSynth(outdir, context, () => {}),
    ]);
    // One synthesized; the other waited for its lock and found the folder fresh.
    expect([a.synthesized, b.synthesized].sort()).toEqual([false, true]);
    expect(isFresh(outdir, context)).toBe(true);
    expect((await ensureSynth(outdir, context, () => {})).synthesized).toBe(false);
  }, 120_000);
});
