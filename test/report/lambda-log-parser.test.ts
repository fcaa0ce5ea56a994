import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { PROJECT_ROOT } from '../../lib/constructs/perf-function';
import { reportLine } from '../../local/host/lambda-log';
import { parseLambdaLog } from '../../report/lambda-log-parser';

describe('REPORT line parser', () => {
  it('reads the real lines of the provisioned-concurrency article, mixed with other output', () => {
    const article = readFileSync(
      `${PROJECT_ROOT}/../shared/seeds/provisioned-concurrency-connections-ja.txt`,
      'utf8',
    );
    const parsed = parseLambdaLog(article);
    expect(parsed.malformed).toEqual([]);
    expect(parsed.reports.length).toBeGreaterThanOrEqual(14);
    expect(parsed.reports[0]).toEqual({
      requestId: '4fd9781e-4d93-4a90-87b4-e637afd92e9f',
      durationMs: 1220.41,
      billedDurationMs: 1221,
      memorySizeMb: 256,
      maxMemoryUsedMb: 86,
      initDurationMs: 2395.82,
    });
    expect(parsed.reports[1]).toMatchObject({ durationMs: 448.36, maxMemoryUsedMb: 87 });
    expect(parsed.reports[1].initDurationMs).toBeUndefined();
    expect(parsed.otherLines).toBeGreaterThan(100);
  });

  it('reads what the local host writes, with function prefixes, timestamps and export prefixes', () => {
    const line = reportLine({
      requestId: '0a1b2c3d-0000-4000-8000-000000000001',
      durationMs: 12.345,
      memorySizeMb: 512,
      maxMemoryUsedMb: 80,
      initDurationMs: 150.5,
    });
    const text = [
      `[dynamodb-get] ${line}`,
      `2026-11-22T07:00:00.000Z ${line.replace('0001', '0002')}`,
      `2026/11/22/[$LATEST]abcdef 2026-11-22T07:00:00.000Z ${line.replace('0001', '0003')}`,
      'REPORT RequestId: 0a1b2c3d-0000-4000-8000-000000000004 Duration: 3.00 ms Billed Duration: 3 ms Memory Size: 128 MB Max Memory Used: 60 MB',
      'INIT_REPORT Init Duration: 201.33 ms\tPhase: init\tStatus: success',
    ].join('\n');
    const parsed = parseLambdaLog(text);
    expect(parsed.malformed).toEqual([]);
    expect(parsed.reports.map((r) => [r.durationMs, r.billedDurationMs, r.initDurationMs, r.source])).toEqual(
      [
        [12.35, 163, 150.5, 'dynamodb-get'],
        [12.35, 163, 150.5, undefined],
        [12.35, 163, 150.5, '2026/11/22/[$LATEST]abcdef'],
        [3, 3, undefined, undefined],
      ],
    );
    expect(parsed.reports[1].timestamp).toBe('2026-11-22T07:00:00.000Z');
    expect(parsed.inits).toEqual([{ initDurationMs: 201.33, status: 'success', source: undefined }]);
  });

  it('counts malformed REPORT lines and never throws', () => {
    const text = [
      'REPORT RequestId:',
      'REPORT RequestId: 4fd9781e-4d93-4a90-87b4-e637afd92e9f\tDuration: fast\tBilled Duration: 1 ms\tMemory Size: 256 MB\tMax Memory Used: 86 MB',
      'REPORT RequestId: 4fd9781e-4d93-4a90-87b4-e637afd92e9f\tDuration: 1.00 ms',
      'REPORT RequestId: 4fd9781e-4d93-4a90-87b4-e637afd92e9f\tDuration: 1.00 ms\tBilled Duration: 1 ms\tMemory Size: 256 MB\tMax Memory Used: 86 MB\tInit Duration: ?? ms',
      'INIT_REPORT Phase: init',
      '\u0000\u0001 garbage',
    ].join('\n');
    const parsed = parseLambdaLog(text);
    expect(parsed.reports).toEqual([]);
    expect(parsed.malformed.map((m) => m.line)).toEqual([1, 2, 3, 4, 5]);
    expect(parsed.malformed[2].reason).toContain('Billed Duration');
    expect(parsed.otherLines).toBe(1);
  });
});
