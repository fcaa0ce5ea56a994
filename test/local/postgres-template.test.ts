/**
 * A throwaway PostgreSQL cluster is a copy of the template the first initdb left
 * (local/engines/postgres-template.ts), and a copy serves as initdb's own cluster does; a
 * template that is not whole is never copied, and the first template saved stays.
 */
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { PROJECT_ROOT } from '../../core/paths';
import {
  findPostgresBin,
  INITDB_OPTIONS,
  type PostgresEngine,
  socketClient,
  startPostgres,
} from '../../local/engines/postgres';
import { copyTemplate, saveTemplate, templateDir } from '../../local/engines/postgres-template';

const scratch = mkdtempSync(join(tmpdir(), 'pg-template-test-'));
const started: PostgresEngine[] = [];
afterAll(async () => {
  await Promise.all(started.map((e) => e.stop()));
  rmSync(scratch, { recursive: true, force: true });
});

function bin(): string {
  if (!findPostgresBin())
    execFileSync('bash', [join(PROJECT_ROOT, 'scripts/ensure-postgres.sh')], { stdio: 'inherit' });
  const found = findPostgresBin();
  if (!found) throw new Error('no PostgreSQL after scripts/ensure-postgres.sh');
  return found;
}

describe('PostgreSQL clusters from a template', () => {
  it('copies the template into a new throwaway cluster, which answers queries', async () => {
    const first = await startPostgres();
    started.push(first);
    const template = templateDir(bin(), INITDB_OPTIONS);
    expect(existsSync(join(template, 'PG_VERSION'))).toBe(true);
    // A file initdb never writes: only a copy of this template has it. PostgreSQL ignores it.
    const marker = join(template, `copied-by-${process.pid}`);
    writeFileSync(marker, 'template');
    try {
      const second = await startPostgres();
      started.push(second);
      expect(readFileSync(join(second.dataDir, `copied-by-${process.pid}`), 'utf8')).toBe('template');
      const client = socketClient(second.socketDir);
      await client.connect();
      try {
        await client.query('CREATE TABLE t (id int PRIMARY KEY)');
        await client.query('INSERT INTO t VALUES (1)');
        expect((await client.query('SELECT count(*)::int AS n FROM t')).rows).toEqual([{ n: 1 }]);
      } finally {
        await client.end();
      }
    } finally {
      rmSync(marker, { force: true });
    }
  }, 120_000);

  it('keys the template by the options, and copies none that is not whole', async () => {
    expect(templateDir(bin(), INITDB_OPTIONS)).not.toBe(templateDir(bin(), [...INITDB_OPTIONS, '-k']));
    // A template's folder without PG_VERSION: a save cut short, or no save yet.
    const partial = join(scratch, 'partial');
    mkdirSync(partial);
    writeFileSync(join(partial, 'postgresql.conf'), '');
    const into = join(scratch, 'into');
    mkdirSync(into);
    expect(await copyTemplate(partial, into)).toBe(false);
    expect(existsSync(join(into, 'postgresql.conf'))).toBe(false);
  });

  it('keeps the first template saved', async () => {
    const template = join(scratch, 'kept');
    const a = join(scratch, 'a');
    const b = join(scratch, 'b');
    for (const [dir, text] of [
      [a, 'first'],
      [b, 'second'],
    ] as const) {
      mkdirSync(dir);
      writeFileSync(join(dir, 'PG_VERSION'), text);
    }
    await saveTemplate(template, a);
    await saveTemplate(template, b);
    expect(readFileSync(join(template, 'PG_VERSION'), 'utf8')).toBe('first');
  });
});
