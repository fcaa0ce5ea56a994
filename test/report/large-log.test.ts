import { closeSync, openSync, readFileSync, rmSync, writeSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { runReportCli } from '../../report/cli';
import { streams, tempDir } from './report-fixture';

const LINES = 1_000_000;
const dir = tempDir('report-large');
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/**
 * Durations 1.00, 1.01, ... 100.99 ms, each 100 times, except the last line (1234.56 ms);
 * every 10,000th line is a cold start. Written in blocks so a million lines take ~1 s.
 */
function writeExport(file: string): void {
  const fd = openSync(file, 'w');
  try {
    const block: string[] = [];
    for (let i = 0; i < LINES; i++) {
      const ms = i === LINES - 1 ? 1234.56 : 1 + (i % 10_000) / 100;
      const id = `0a1b2c3d-0000-4000-8000-${String(i).padStart(12, '0')}`;
      const init = i % 10_000 === 0 ? 'Init Duration: 150.00 ms\t' : '';
      block.push(
        `REPORT RequestId: ${id}\tDuration: ${ms.toFixed(2)} ms\tBilled Duration: ${Math.ceil(ms)} ms\tMemory Size: 512 MB\tMax Memory Used: ${60 + (i % 40)} MB\t${init}`,
      );
      if (block.length === 10_000) {
        writeSync(fd, `${block.join('\n')}\n`);
        block.length = 0;
      }
    }
  } finally {
    closeSync(fd);
  }
}

describe('--logs on a large export', () => {
  it('reads 1,000,000 REPORT lines of one function in bounded memory, with progress on stderr', async () => {
    const file = join(dir, 'export.txt');
    writeExport(file);
    const io = streams();
    const heapBefore = process.memoryUsage().heapUsed;
    let heapPeak = heapBefore;
    const err = {
      write: (s: string) => {
        heapPeak = Math.max(heapPeak, process.memoryUsage().heapUsed);
        io.err.write(s);
      },
    };
    const out = join(dir, 'out');
    const code = await runReportCli(['--logs', file, '--out', out], { out: io.out, err, tuningDirs: [] });
    expect(
      io
        .stderr()
        .split('\n')
        .filter((l) => l.includes('lines read')),
    ).toHaveLength(10);
    expect(io.stderr()).toContain('report: export.txt: 1,000,000 lines read, 1,000,000 REPORT\n');
    expect(code).toBe(0);
    // The whole file as one string is ~140 MB, its lines as an array as much again.
    expect(heapPeak - heapBefore).toBeLessThan(100 * 1024 * 1024);

    const json = JSON.parse(readFileSync(join(out, 'report.json'), 'utf8')) as {
      functions: {
        duration: { count: number; min: number; max: number; p50: number; p99: number };
        billedDuration: { avg: number };
        maxMemoryUsedMb: { max: number };
        init: { count: number; max: number };
      }[];
    };
    expect(json.functions).toHaveLength(1);
    const [f] = json.functions;
    expect(f.duration.count).toBe(LINES);
    expect(f.duration.min).toBe(1);
    expect(f.duration.max).toBe(1234.56);
    // rank 500,000 of 100 copies each of 1.00 .. 100.99: the 5,000th value, 50.99 (HDR: within 0.1 %)
    expect(Math.abs(f.duration.p50 - 50.99)).toBeLessThanOrEqual(50.99 * 0.001);
    expect(Math.abs(f.duration.p99 - 99.99)).toBeLessThanOrEqual(99.99 * 0.001);
    expect(f.maxMemoryUsedMb.max).toBe(99);
    expect(f.init).toMatchObject({ count: 100, max: 150 });
  }, 180_000); // ~10 s of one core quiet; a bound for a hang, at least 3x what a loaded machine took
});
