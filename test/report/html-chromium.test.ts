/**
 * Renders report.html in headless Chromium (Debian's `chromium` package): every plot must be
 * in the DOM with its title, and a screenshot must come out. No Chromium is a failure, not
 * a skip: the report's promise is that it renders in a browser.
 */
import { execFile } from 'node:child_process';
import { existsSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { promisify } from 'node:util';
import { beforeAll, describe, expect, it } from 'vitest';
import { buildFromResultsDir } from '../../report/build-report';
import { plotSpecs } from '../../report/plots';
import type { LabReport } from '../../report/report-model';
import { writeReportFiles } from '../../report/write-report';
import { copyFixtureResults, tempDir } from './report-fixture';

const run = promisify(execFile);
const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';

function requireChromium(): void {
  if (!existsSync(CHROMIUM)) {
    throw new Error(
      `Chromium not found at ${CHROMIUM}: install it with \`apt-get update && apt-get install -y chromium\` (or set CHROMIUM_PATH)`,
    );
  }
}

/** Flags for a quiet, offline, throwaway headless run. */
function chromiumArgs(profile: string): string[] {
  return [
    '--headless',
    '--no-sandbox',
    '--disable-gpu',
    '--disable-quic',
    '--no-first-run',
    '--disable-background-networking',
    '--disable-component-update',
    '--disable-sync',
    '--hide-scrollbars',
    `--user-data-dir=${profile}`,
  ];
}

const unescapeXml = (s: string) =>
  s
    .replace(/&lt;/g, '<')
    .replace(/&gt;/g, '>')
    .replace(/&quot;/g, '"')
    .replace(/&#39;/g, "'")
    .replace(/&amp;/g, '&');

let report: LabReport;
let htmlPath: string;
let workDir: string;

beforeAll(async () => {
  const inDir = copyFixtureResults();
  report = await buildFromResultsDir(inDir, { tuningDirs: [join(inDir, 'tuning')] });
  workDir = tempDir('report-chromium');
  htmlPath = (await writeReportFiles(report, join(workDir, 'out'))).files.html;
});

describe('report.html in headless Chromium', () => {
  it('has every plot in the rendered DOM, with its title, axes and caption', async () => {
    requireChromium();
    const { stdout: dom } = await run(
      CHROMIUM,
      [...chromiumArgs(join(workDir, 'profile-dom')), '--dump-dom', pathToFileURL(htmlPath).href],
      { timeout: 60_000, maxBuffer: 64 * 1024 * 1024 },
    );
    const expected = plotSpecs(report);
    expect(expected.map((p) => p.id)).toEqual([
      'cdf-dynamodb-create',
      'cdf-dynamodb-get',
      'keep-alive-ratio',
      'cold-starts',
      'connection-reuse',
      'over-time',
      'tuning-dynamodb-get-1',
    ]);
    const svgs = [...dom.matchAll(/<svg id="plot-([^"]+)"[\s\S]*?<\/svg>/g)];
    expect(svgs.map((m) => m[1])).toEqual(expected.map((p) => p.id));
    for (const p of expected) {
      const svg = svgs.find((m) => m[1] === p.id)?.[0] ?? '';
      const title = new RegExp(`<title id="plot-${p.id}-title">([^<]*)</title>`).exec(svg)?.[1];
      expect(unescapeXml(title ?? ''), p.id).toBe(p.title);
      // Vega drew it: the title as text, axes with their titles, marks as paths.
      expect(svg, p.id).toContain('role-axis-title');
      expect(svg, p.id).toMatch(/<path /);
      expect(unescapeXml(svg), p.id).toContain(p.title.slice(0, 30));
      expect(dom).toContain(`<figure id="figure-${p.id}">`);
    }
    expect(dom).toContain('<figcaption>');
    // legends name the variants
    expect(dom).toContain('keep-alive off');
    expect(dom).toContain('keep-alive on');
    expect(dom).not.toMatch(/<script/i);
  });

  it('takes a non-empty 1280 x 4000 PNG screenshot', async () => {
    requireChromium();
    const png = join(workDir, 'report.png');
    await run(
      CHROMIUM,
      [
        ...chromiumArgs(join(workDir, 'profile-shot')),
        `--screenshot=${png}`,
        '--window-size=1280,4000',
        pathToFileURL(htmlPath).href,
      ],
      { timeout: 60_000 },
    );
    expect(existsSync(png)).toBe(true);
    const bytes = readFileSync(png);
    expect(bytes.subarray(0, 8)).toEqual(Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]));
    // IHDR: width and height, big-endian, at bytes 16..23
    expect([bytes.readUInt32BE(16), bytes.readUInt32BE(20)]).toEqual([1280, 4000]);
    // a blank page compresses to a few KB; this one has tables and plots
    expect(statSync(png).size).toBeGreaterThan(100_000);
  });
});
