/**
 * The guide stays a guide and its links stay true: the README is at most 400 lines, every link
 * in it and in docs/ to a file of the repository (and to a heading, when it names one) lands,
 * and every repository path they name in backticks exists. Pure file reads.
 */
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { describe, expect, it } from 'vitest';
import { PROJECT_ROOT } from '../../core/paths';

const README_MAX_LINES = 400;
/** Top-level folders that are not the repository's own files (built, fetched or written by runs). */
const NOT_COMMITTED = new Set(['node_modules', 'results', '.cache', '.lab', 'cdk.out', '.git']);

const pages = (): string[] => [
  join(PROJECT_ROOT, 'README.md'),
  ...readdirSync(join(PROJECT_ROOT, 'docs'))
    .filter((f) => f.endsWith('.md'))
    .map((f) => join(PROJECT_ROOT, 'docs', f)),
];

/** The page without its fenced code blocks: a link or a path in an example is not the page's. */
const prose = (text: string): string => text.replace(/^```[^\n]*\n[\s\S]*?^```$/gm, '');

/** Each heading's anchor as GitHub makes it: lower case, punctuation dropped, spaces to hyphens, -N for repeats. */
function anchors(markdown: string): Set<string> {
  const out = new Set<string>();
  const seen = new Map<string, number>();
  for (const m of prose(markdown).matchAll(/^#{1,6}\s+(.+?)\s*#*$/gm)) {
    const base = m[1]
      .toLowerCase()
      .replace(/[^\p{L}\p{N}\s_-]/gu, '')
      .replace(/\s/g, '-');
    const n = seen.get(base) ?? 0;
    seen.set(base, n + 1);
    out.add(n === 0 ? base : `${base}-${n}`);
  }
  return out;
}

/** Markdown links `[text](target)` whose target is a local file, with their optional #anchor. */
function localLinks(text: string): { target: string; anchor?: string }[] {
  const out: { target: string; anchor?: string }[] = [];
  for (const m of prose(text).matchAll(/\]\(([^)\s]+)\)/g)) {
    const href = m[1];
    if (/^[a-z][a-z0-9+.-]*:/i.test(href)) continue;
    const [target, anchor] = href.split('#');
    out.push({ target, anchor });
  }
  return out;
}

/**
 * Paths in backticks whose first segment is a top-level folder of the repository and that read
 * as a file (an extension) or a folder (a final slash): `aws/secretsmanager`, a key alias, is not one.
 */
function namedPaths(text: string): string[] {
  const roots = new Set(
    readdirSync(PROJECT_ROOT).filter(
      (e) => !NOT_COMMITTED.has(e) && statSync(join(PROJECT_ROOT, e)).isDirectory(),
    ),
  );
  const out: string[] = [];
  for (const m of prose(text).matchAll(/`([^`\s]+)`/g)) {
    const token = m[1].replace(/[.,:;)]+$/, '');
    if (!token.includes('/') || /[<>*{}$=]/.test(token)) continue;
    if (!token.endsWith('/') && !/\.[a-z]+$/.test(token)) continue;
    if (roots.has(token.split('/')[0])) out.push(token);
  }
  return out;
}

describe('the README and docs/', () => {
  it(`the README is a guide: at most ${README_MAX_LINES} lines`, () => {
    const lines = readFileSync(join(PROJECT_ROOT, 'README.md'), 'utf8').split('\n').length;
    expect(lines).toBeLessThanOrEqual(README_MAX_LINES);
  });

  it('every link to a repository file lands, on an existing heading when it names one', () => {
    const broken: string[] = [];
    for (const page of pages()) {
      const text = readFileSync(page, 'utf8');
      for (const { target, anchor } of localLinks(text)) {
        const file = target === '' ? page : join(dirname(page), target);
        const where = `${relative(PROJECT_ROOT, page)} -> ${target}${anchor ? `#${anchor}` : ''}`;
        if (!existsSync(file)) broken.push(`${where}: no such file`);
        else if (anchor && file.endsWith('.md') && !anchors(readFileSync(file, 'utf8')).has(anchor))
          broken.push(`${where}: no such heading`);
      }
    }
    expect(broken).toEqual([]);
  });

  it('every repository path named in backticks exists', () => {
    const missing: string[] = [];
    for (const page of pages()) {
      for (const path of namedPaths(readFileSync(page, 'utf8'))) {
        if (!existsSync(join(PROJECT_ROOT, path))) missing.push(`${relative(PROJECT_ROOT, page)}: ${path}`);
      }
    }
    expect(missing).toEqual([]);
  });

  it('makes the anchors GitHub makes', () => {
    expect([
      ...anchors(
        "# A title\n## summary.json: one format, one schema\n## `power-tuning`: the article's run\n## A title",
      ),
    ]).toEqual([
      'a-title',
      'summaryjson-one-format-one-schema',
      'power-tuning-the-articles-run',
      'a-title-1',
    ]);
  });
});
