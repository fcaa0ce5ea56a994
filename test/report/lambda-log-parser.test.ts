import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { reportLine } from '../../local/host/lambda-log';
import { parseLambdaLog } from '../../runs/lambda-log-parser';
import { ARTICLE_LOG, SNAPSTART_XRAY_LOG } from './report-fixture';

describe('REPORT line parser', () => {
  it('reads the real lines of the provisioned-concurrency article, mixed with other output', () => {
    const article = readFileSync(ARTICLE_LOG, 'utf8');
    const parsed = parseLambdaLog(article);
    expect(parsed.malformed).toEqual([]);
    expect(parsed.reports.length).toBe(14);
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
    // 110 log lines: 14 REPORT, the rest START, INIT_START, handler output and `...`
    expect(parsed.otherLines).toBe(96);
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

  it('keeps Duration apart from SnapStart Restore Duration and reads X-Ray fields on the line', () => {
    const parsed = parseLambdaLog(readFileSync(SNAPSTART_XRAY_LOG, 'utf8'));
    expect(parsed.malformed).toEqual([]);
    expect(parsed.otherLines).toBe(1);
    expect(parsed.reports.map((r) => [r.durationMs, r.billedDurationMs])).toEqual([
      [41.27, 178],
      [7.93, 8],
      [12.06, 13],
      [25.5, 26],
    ]);
    expect(parsed.reports[0]).toMatchObject({ restoreDurationMs: 312.45, billedRestoreDurationMs: 136 });
    expect(parsed.reports[0].initDurationMs).toBeUndefined();
    expect(parsed.reports[1].restoreDurationMs).toBeUndefined();
    expect(parsed.reports[1].xray).toBeUndefined();
    expect(parsed.reports[2]).toMatchObject({
      maxMemoryUsedMb: 97,
      xray: { traceId: '1-6650a1b2-3c4d5e6f7a8b9c0d1e2f3a4b', segmentId: '0a1b2c3d4e5f6a7b', sampled: true },
    });
    // spaces instead of tabs: the field names alone delimit the values
    expect(parsed.reports[3]).toMatchObject({
      restoreDurationMs: 280.1,
      billedRestoreDurationMs: 120,
      maxMemoryUsedMb: 98,
      timestamp: '2026-11-22T07:00:00.000Z',
      xray: { traceId: '1-6650a1b3-4d5e6f7a8b9c0d1e2f3a4b5c', segmentId: '1b2c3d4e5f6a7b8c', sampled: false },
    });
  });

  it('counts malformed REPORT lines and never throws', () => {
    const text = [
      'REPORT RequestId:',
      'REPORT RequestId: 4fd9781e-4d93-4a90-87b4-e637afd92e9f\tDuration: fast\tBilled Duration: 1 ms\tMemory Size: 256 MB\tMax Memory Used: 86 MB',
      'REPORT RequestId: 4fd9781e-4d93-4a90-87b4-e637afd92e9f\tDuration: 1.00 ms',
      'REPORT RequestId: 4fd9781e-4d93-4a90-87b4-e637afd92e9f\tDuration: 1.00 ms\tBilled Duration: 1 ms\tMemory Size: 256 MB\tMax Memory Used: 86 MB\tInit Duration: ?? ms',
      'INIT_REPORT Phase: init',
      'REPORT RequestId: 4fd9781e-4d93-4a90-87b4-e637afd92e9f\tDuration: 1.00 ms\tBilled Duration: 1 ms\tMemory Size: 256 MB\tMax Memory Used: 86 MB\tRestore Duration: slow ms',
      '\u0000\u0001 garbage',
    ].join('\n');
    const parsed = parseLambdaLog(text);
    expect(parsed.reports).toEqual([]);
    expect(parsed.malformed.map((m) => m.line)).toEqual([1, 2, 3, 4, 5, 6]);
    expect(parsed.malformed[5].reason).toBe('unreadable Restore Duration');
    expect(parsed.malformed[2].reason).toContain('Billed Duration');
    expect(parsed.otherLines).toBe(1);
  });
});
