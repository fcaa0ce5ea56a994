import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { buildFromLogFile, functionNameOf } from '../../report/build-report';
import { runReportCli } from '../../report/cli';
import { ARTICLE_LOG, streams, tempDir } from './report-fixture';

const within = (actual: number | null | undefined, expected: number) => {
  expect(actual).not.toBeNull();
  expect(Math.abs((actual ?? Number.NaN) - expected)).toBeLessThanOrEqual(expected * 0.001 + 0.001);
};

// The 14 REPORT lines of the article, in order: two experiments of 6 and 8 invocations.
const DURATIONS = [
  1220.41, 448.36, 471.7, 487.16, 444.54, 468.45, 1281.08, 420.63, 393.81, 407.46, 349.38, 406.58, 602.94,
  369.89,
];
const BILLED = [1221, 449, 472, 488, 445, 469, 1282, 421, 394, 408, 350, 407, 603, 370];
const sum = (xs: number[]) => xs.reduce((a, b) => a + b, 0);

interface FunctionEntry {
  name: string;
  duration: { count: number; avg: number; min: number; max: number; p50: number; p95: number; p99: number };
  billedDuration: { avg: number };
  maxMemoryUsedMb: { max: number };
  init: { count: number; p50: number | null; p95: number | null; max: number | null };
}

describe('--logs on the provisioned-concurrency article', () => {
  it('writes one function entry with duration, billed, memory and init statistics', async () => {
    const out = join(tempDir('report-logs'), 'out');
    const io = streams();
    const code = await runReportCli(['--logs', ARTICLE_LOG, '--out', out], { ...io, tuningDirs: [] });
    expect(io.stderr()).toBe('');
    expect(code).toBe(0);
    expect(io.stdout()).toContain('0 malformed lines');

    const json = JSON.parse(readFileSync(join(out, 'report.json'), 'utf8')) as { functions: FunctionEntry[] };
    expect(json.functions).toHaveLength(1);
    const [f] = json.functions;
    // No prefix on the lines: the file is all that names them.
    expect(f.name).toBe('article-report-lines.txt');
    expect(f.duration.count).toBe(14);
    expect(f.duration.avg).toBeCloseTo(sum(DURATIONS) / 14, 9);
    expect(f.duration.min).toBe(349.38);
    expect(f.duration.max).toBe(1281.08);
    // sorted: 349.38 369.89 393.81 406.58 407.46 420.63 444.54 ...; p50 = the 7th of 14
    within(f.duration.p50, 444.54);
    // p95 and p99 are the 14th: the largest
    within(f.duration.p95, 1281.08);
    within(f.duration.p99, 1281.08);
    expect(f.billedDuration.avg).toBeCloseTo(sum(BILLED) / 14, 9);
    expect(f.maxMemoryUsedMb.max).toBe(93);
    // Two cold starts: Init Duration 2395.82 and 2229.18 ms
    expect(f.init.count).toBe(2);
    within(f.init.p50, 2229.18);
    within(f.init.p95, 2395.82);
    expect(f.init.max).toBe(2395.82);

    const md = readFileSync(join(out, 'report.md'), 'utf8');
    expect(md).toContain('Malformed lines: 0.');
    expect(md).toContain('| article-report-lines.txt | 14 |');
    const html = readFileSync(join(out, 'report.html'), 'utf8');
    expect(html).toContain('<svg id="plot-function-duration-cdf"');
    expect(html).toContain('<svg id="plot-cold-starts"');
  });

  it('splits cold from warm invocations', async () => {
    const r = await buildFromLogFile(ARTICLE_LOG, { tuningDirs: [] });
    const [f] = r.functions;
    expect(f.cold?.count).toBe(2);
    expect(f.warm?.count).toBe(12);
    expect(f.cold?.max).toBe(1281.08);
    expect(f.warm?.max).toBe(602.94);
    expect(r.malformed.count).toBe(0);
    expect(r.groups).toEqual([]);
  });
});

describe('--logs on CloudWatch exports with malformed lines', () => {
  const GROUP = '/aws/lambda/LatencyLab-Api-DynamodbGet-AAA';
  const good = (id: number, ms: number, init = '') =>
    `REPORT RequestId: 0a1b2c3d-0000-4000-8000-${String(id).padStart(12, '0')}\tDuration: ${ms.toFixed(2)} ms\tBilled Duration: ${Math.ceil(ms)} ms\tMemory Size: 512 MB\tMax Memory Used: ${70 + id} MB\t${init}`;
  const LINES = [
    // Logs Insights export / fetchLabLogs: `[<log group>] message`
    `[${GROUP}] ${good(1, 12.5, 'Init Duration: 180.25 ms\t')}`,
    `[${GROUP}] ${good(2, 8.25)}`,
    `[${GROUP}] INIT_REPORT Init Duration: 220.00 ms\tPhase: init\tStatus: success`,
    // console export with a timestamp and the log stream
    `2026/11/22/[$LATEST]0123456789abcdef 2026-11-22T07:00:00.000Z ${good(3, 20)}`,
    // aws logs tail: ISO time with an offset, then the stream
    `2026-11-22T07:00:01.000000+00:00 2026/11/22/[$LATEST]fedcba9876543210 ${good(4, 30)}`,
    // a bare message, with START/END around it and the handler's output
    'START RequestId: 0a1b2c3d-0000-4000-8000-000000000005 Version: $LATEST',
    '2026-11-22T07:00:02.000Z\t0a1b2c3d-0000-4000-8000-000000000005\tINFO\t{"lab":"timing","fn":"dynamodb-get"}',
    good(5, 3),
    // local runs: `[function key]`
    `[dynamodb-get-keepalive-on] ${good(6, 9)}`,
    `[dynamodb-get-keepalive-off] ${good(7, 27)}`,
    // malformed
    'REPORT RequestId:',
    `[${GROUP}] REPORT RequestId: 0a1b2c3d-0000-4000-8000-000000000099\tDuration: fast ms\tBilled Duration: 1 ms\tMemory Size: 512 MB\tMax Memory Used: 80 MB`,
    'INIT_REPORT Phase: init Status: error',
    '\u0000\u0001 binary garbage',
  ];

  it('names each function by its log group, log stream group, key or file; counts malformed lines', async () => {
    const dir = tempDir('report-export');
    const file = join(dir, 'export.txt');
    writeFileSync(file, `${LINES.join('\n')}\n`);
    const r = await buildFromLogFile(file, { tuningDirs: [] });
    expect(r.functions.map((f) => [f.name, f.nameFrom, f.duration.count])).toEqual([
      ['dynamodb-get-keepalive-off', 'function', 1],
      ['dynamodb-get-keepalive-on', 'function', 1],
      ['export.txt', 'file', 1],
      ['LatencyLab-Api-DynamodbGet-AAA', 'log-group', 2],
      ['log streams [$LATEST]', 'log-stream', 2],
    ]);
    const fn = r.functions.find((f) => f.nameFrom === 'log-group');
    expect(fn).toMatchObject({ provisionedInits: 1, init: { count: 2, max: 220 }, cold: { count: 1 } });
    expect(r.malformed.count).toBe(3);
    expect(r.malformed.examples.map((m) => m.line)).toEqual([11, 12, 13]);
    // function keys become runs, so a local log alone compares keep-alive at the function layer
    expect(r.keepAlive).toEqual([
      expect.objectContaining({
        target: 'dynamodb',
        phase: 'get',
        layers: [expect.objectContaining({ layer: 'function', ratioP50: 3 })],
      }),
    ]);

    const out = join(dir, 'out');
    const io = streams();
    expect(await runReportCli(['--logs', file, '--out', out], { ...io, tuningDirs: [] })).toBe(0);
    expect(io.stdout()).toContain('3 malformed lines');
    const html = readFileSync(join(out, 'report.html'), 'utf8');
    expect(html).toContain('<p class="notice">Malformed lines: 3 input line(s) could not be read');
    expect(html).toContain('INIT_REPORT without Init Duration');
    const md = readFileSync(join(out, 'report.md'), 'utf8');
    expect(md).toMatch(/> \*\*Malformed lines: 3 input line\(s\)/);
    expect(md).toContain('| export.txt | 12 | missing or unreadable Duration |');
  });

  it('reports an empty or unreadable file without crashing', async () => {
    const dir = tempDir('report-empty');
    const file = join(dir, 'empty.log');
    writeFileSync(file, 'REPORT nothing here\nINIT_REPORT Phase: init\n');
    const r = await buildFromLogFile(file, { tuningDirs: [] });
    expect(r.functions).toEqual([]);
    expect(r.malformed.count).toBe(2);
    expect(r.warnings).toEqual(['no REPORT line in empty.log']);
    const io = streams();
    expect(await runReportCli(['--logs', join(dir, 'missing.log')], { ...io, tuningDirs: [] })).toBe(2);
    expect(io.stderr()).toMatch(/^report: --logs .*missing.log: no such file\n$/);
  });

  it('tells apart what a source names', () => {
    expect(functionNameOf('/aws/lambda/fn-1', 'f')).toEqual({ name: 'fn-1', nameFrom: 'log-group' });
    expect(functionNameOf('2026/01/02/[12]abc', 'f')).toEqual({
      name: 'log streams [12]',
      nameFrom: 'log-stream',
    });
    expect(functionNameOf('2026-01-02T03:04:05.000+00:00', 'f')).toEqual({ name: 'f', nameFrom: 'file' });
    expect(functionNameOf(undefined, 'f')).toEqual({ name: 'f', nameFrom: 'file' });
  });
});
