/**
 * report.html: one self-contained page. Styles inline, plots as inline SVG, no script, no
 * external font, image or stylesheet, so it renders the same offline, in a mail or an archive.
 * Its Content-Security-Policy forbids every fetch, so a stray reference would show as missing.
 */
import type { Block, Column, Plot, Section } from './page';
import type { LabReport } from './report-model';
import { REPORT_TITLE, reportSections } from './report-sections';

export const escapeHtml = (s: string) =>
  s
    .replace(/&/g, '&amp;')
    .replace(/</g, '&lt;')
    .replace(/>/g, '&gt;')
    .replace(/"/g, '&quot;')
    .replace(/'/g, '&#39;');

const STYLE = `
:root { color-scheme: light; }
body { font-family: "DejaVu Sans", "Liberation Sans", Helvetica, Arial, sans-serif; margin: 0 auto; max-width: 1400px;
  padding: 24px 32px 64px; color: #1d1d1d; background: #fff; line-height: 1.45; font-size: 14px; }
h1 { font-size: 24px; margin: 0 0 8px; }
h2 { font-size: 19px; margin: 36px 0 10px; padding-bottom: 4px; border-bottom: 2px solid #e4e4e4; }
h3 { font-size: 15px; margin: 22px 0 8px; }
nav { font-size: 13px; margin: 8px 0 16px; }
nav a { margin-right: 14px; color: #1f5fa8; text-decoration: none; }
p { margin: 6px 0; }
p.notice { background: #fff4d6; border-left: 4px solid #e0a800; padding: 6px 10px; }
code, pre { font-family: "DejaVu Sans Mono", "Liberation Mono", monospace; font-size: 12px; }
pre { background: #f5f5f5; padding: 8px 10px; overflow-x: auto; white-space: pre-wrap; }
.table-wrap { overflow-x: auto; margin: 8px 0 14px; }
table { border-collapse: collapse; font-size: 12.5px; }
th, td { border: 1px solid #dcdcdc; padding: 3px 7px; text-align: left; vertical-align: top; }
td { white-space: nowrap; }
td.wrap { white-space: normal; min-width: 320px; }
th { background: #f3f5f8; font-weight: 600; }
th.num { text-align: right; }
td.num { text-align: right; font-variant-numeric: tabular-nums; }
tbody tr:nth-child(even) { background: #fafafa; }
figure { margin: 14px 0 22px; padding: 10px; border: 1px solid #e6e6e6; border-radius: 4px; display: inline-block; max-width: calc(100% - 22px); }
figure svg { display: block; max-width: 100%; height: auto; }
figcaption { font-size: 12.5px; color: #444; margin-top: 6px; max-width: 900px; }
figcaption b { color: #1d1d1d; }
`;

function block(b: Block): string {
  switch (b.kind) {
    case 'heading':
      return `<h3>${escapeHtml(b.text)}</h3>`;
    case 'text':
      return `<p>${escapeHtml(b.text)}</p>`;
    case 'notice':
      return `<p class="notice">${escapeHtml(b.text)}</p>`;
    case 'link':
      // A link is followed only on a click: the page itself loads nothing.
      return `<p>${escapeHtml(b.label)}: <a href="${escapeHtml(b.href)}">${escapeHtml(b.href)}</a></p>`;
    case 'code':
      return `<pre><code>${escapeHtml(b.text)}</code></pre>`;
    case 'table': {
      const cls = (c: Column | undefined) => (c?.numeric ? ' class="num"' : c?.wrap ? ' class="wrap"' : '');
      const head = b.columns.map((c) => `<th${cls(c)}>${escapeHtml(c.title)}</th>`).join('');
      const body = b.rows
        .map(
          (r) =>
            `<tr>${r.map((cell, i) => `<td${cls(b.columns[i])}>${escapeHtml(cell)}</td>`).join('')}</tr>`,
        )
        .join('\n');
      return `<div class="table-wrap"><table><thead><tr>${head}</tr></thead><tbody>\n${body}\n</tbody></table></div>`;
    }
    case 'plot':
      return figure(b.plot);
  }
}

function figure(p: Plot): string {
  return `<figure id="figure-${p.id}">${p.svg}<figcaption><b>${escapeHtml(p.title)}.</b> ${escapeHtml(p.caption)}</figcaption></figure>`;
}

function section(s: Section): string {
  return `<section id="${s.id}">\n<h2>${escapeHtml(s.title)}</h2>\n${s.blocks.map(block).join('\n')}\n</section>`;
}

export function renderHtml(report: LabReport, plots: readonly Plot[]): string {
  const sections = reportSections(report, plots);
  const nav = sections.map((s) => `<a href="#${s.id}">${escapeHtml(s.title)}</a>`).join('');
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta http-equiv="Content-Security-Policy" content="default-src 'none'; style-src 'unsafe-inline'">
<meta name="generator" content="npm run report">
<title>${escapeHtml(REPORT_TITLE)}</title>
<style>${STYLE}</style>
</head>
<body>
<h1>${escapeHtml(REPORT_TITLE)}</h1>
<nav>${nav}</nav>
${sections.map(section).join('\n')}
</body>
</html>
`;
}
