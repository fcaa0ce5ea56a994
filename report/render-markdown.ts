/**
 * report.md: the same sections as report.html, as text. Plots are named with their caption
 * and point to report.html, where they are drawn.
 */

import type { Block, Plot } from './page';
import type { LabReport } from './report-model';
import { REPORT_TITLE, reportSections } from './report-sections';

/** Table cells cannot hold a pipe or a line break. */
const cell = (s: string) => s.replace(/\|/g, '\\|').replace(/\r?\n/g, ' ');

function block(b: Block): string {
  switch (b.kind) {
    case 'heading':
      return `### ${b.text}`;
    case 'text':
      return b.text;
    case 'notice':
      return `> **${b.text}**`;
    case 'link':
      return `${b.label}: <${b.href}>`;
    case 'code':
      return `\`\`\`\n${b.text}\n\`\`\``;
    case 'table': {
      const head = `| ${b.columns.map((c) => cell(c.title)).join(' | ')} |`;
      const rule = `|${b.columns.map((c) => (c.numeric ? '---:' : '---')).join('|')}|`;
      const rows = b.rows.map((r) => `| ${r.map(cell).join(' | ')} |`);
      return [head, rule, ...rows].join('\n');
    }
    case 'plot':
      return `*Plot (in report.html): ${b.plot.title}.* ${b.plot.caption}`;
  }
}

export function renderMarkdown(report: LabReport, plots: readonly Plot[]): string {
  const parts = [`# ${REPORT_TITLE}`];
  for (const s of reportSections(report, plots)) {
    parts.push(`## ${s.title}`);
    for (const b of s.blocks) parts.push(block(b));
  }
  return `${parts.join('\n\n')}\n`;
}
