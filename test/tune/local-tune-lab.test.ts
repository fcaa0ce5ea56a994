/** Local Power Tuning, one real run on the local lab (slow tier: it starts a lab). */
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';

describe('local Power Tuning on the lab', () => {
  const out = mkdtempSync(join(tmpdir(), 'lab-local-tune-'));
  afterAll(() => rmSync(out, { recursive: true, force: true }));

  it('invokes the function at each power value on new environments and saves the result in its shape', async () => {
    const { runLocalTune } = await import('../../tune/local-tune');
    const lines: string[] = [];
    const { output, file } = await runLocalTune({
      function: 'dynamodb-get',
      // 256, not 128: a fresh environment's first call at 128 MB ran past the 10 s timeout here (2026-11-26).
      powerValues: [256, 1769],
      num: 5,
      strategy: 'speed',
      outDir: out,
      log: (l) => lines.push(l),
    });
    expect(readdirSync(out)).toEqual([file.split('/').pop()]);
    const saved = JSON.parse(readFileSync(file, 'utf8'));
    expect(saved).toMatchObject({ where: 'local', function: { key: 'dynamodb-get' }, profile: 'in-region' });
    expect(saved.output).toEqual(output);
    // The result says how memory was applied (cgroups, or not modeled and why).
    expect(typeof saved.memoryModel.modeled).toBe('boolean');
    expect(output.stats.map((s) => s.value)).toEqual([256, 1769]);
    for (const s of output.stats) {
      expect(s.averageDuration).toBeGreaterThan(0);
      expect(s.averagePrice).toBeGreaterThan(0);
    }
    // Every invocation answered 200: the Person was created first, each one read it.
    expect(lines.filter((l) => /5x 200/.test(l))).toHaveLength(2);
    // Beside Power Tuning's Lambda-only price: the request, API and database charges, one line
    // per power value; a strongly consistent get is 1 read unit ($0.125 per million) on any engine.
    const full = lines.filter((l) => /full cost \$[\d.]+ per million requests/.test(l));
    expect(full).toHaveLength(2);
    for (const l of full) expect(l).toMatch(/API 3\.50, database 0\.13 \(measured\) at us-east-1\.json/);
    // The speed strategy picks the power value with the lowest average duration.
    const fastest = [...output.stats].sort((a, b) => (a.averageDuration ?? 0) - (b.averageDuration ?? 0))[0];
    expect(output.power).toBe(fastest.value);
    expect(output.duration).toBe(fastest.averageDuration);
  }, 300_000);
});
