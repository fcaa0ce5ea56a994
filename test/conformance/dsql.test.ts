/**
 * Aurora DSQL conformance: the local stand-in (PostgreSQL behind the DSQL front and the network
 * model) driven by clients the lab does not use itself: psql 15 (simple query protocol, TLS
 * verify-full against the lab CA) and psycopg 3 (extended protocol: Parse/Bind/Execute, named
 * prepared statements), with passwords made by botocore's generate_db_connect_admin_auth_token
 * and generate_db_connect_auth_token. Each case states what DSQL does and where that is written.
 *
 * Sources (ids used in the cases below):
 * - UNSUPPORTED: https://docs.aws.amazon.com/aurora-dsql/latest/userguide/working-with-postgresql-compatibility-unsupported-features.html
 * - DDL: https://docs.aws.amazon.com/aurora-dsql/latest/userguide/working-with-ddl.html
 * - CONCURRENCY: https://docs.aws.amazon.com/aurora-dsql/latest/userguide/working-with-concurrency-control.html
 * - RELEASE_NOTES (foreign keys, 2026-08-26; sequences): https://docs.aws.amazon.com/aurora-dsql/latest/userguide/release-notes.html
 * - FOREIGN_KEYS: https://docs.aws.amazon.com/aurora-dsql/latest/userguide/working-with-foreign-key-constraints.html
 * - AUTH: https://docs.aws.amazon.com/aurora-dsql/latest/userguide/authentication-authorization.html
 * Exact messages not in the guide are the ones users recorded from real clusters (dsql-sql.ts
 * names each as measured or inferred).
 */
import { existsSync } from 'node:fs';
import { rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ADMIN_USER, DSQL_POSTGRES_MAJOR, socketClient } from '../../local/engines/postgres';
import { LOCAL_CREDENTIALS, LOCAL_REGION } from '../../local/engines/types';
import { OC000 } from '../../targets/dsql/front';
import { type DsqlLocal, LOCAL_DSQL_HOST, startDsqlLocal } from '../support/dsql-local';
import { runClient, runPythonClient } from './support/clients';

let local: DsqlLocal;
let tokens: { admin: string; user: string };
const READER = 'conf_reader';

const sdkEnv = (): NodeJS.ProcessEnv => ({
  AWS_ACCESS_KEY_ID: LOCAL_CREDENTIALS.accessKeyId,
  AWS_SECRET_ACCESS_KEY: LOCAL_CREDENTIALS.secretAccessKey,
  AWS_DEFAULT_REGION: LOCAL_REGION,
  AWS_REGION: LOCAL_REGION,
  AWS_CONFIG_FILE: '/dev/null',
  AWS_SHARED_CREDENTIALS_FILE: '/dev/null',
});

interface PsqlResult {
  code: number;
  stdout: string;
  /** SQLSTATE and message of the first error psql printed (VERBOSITY=verbose prints the code). */
  error?: { code: string; message: string };
  stderr: string;
}

/** psql as a user would run it against DSQL: libpq env, verify-full TLS, the token as password. */
async function psql(
  sql: string,
  opts: { user?: string; password?: string; database?: string | null; script?: boolean } = {},
): Promise<PsqlResult> {
  const env: NodeJS.ProcessEnv = {
    PGHOST: LOCAL_DSQL_HOST,
    PGPORT: String(local.model.port),
    PGUSER: opts.user ?? ADMIN_USER,
    PGPASSWORD: opts.password ?? tokens.admin,
    PGSSLMODE: 'verify-full',
    PGSSLROOTCERT: local.caPath,
    PGCONNECT_TIMEOUT: '10',
  };
  if (opts.database !== null) env.PGDATABASE = opts.database ?? 'postgres';
  const args = ['-X', '-q', '-A', '-t', '-v', 'ON_ERROR_STOP=1', '-v', 'VERBOSITY=verbose'];
  const result = opts.script
    ? await runClient('psql', [...args, '-f', '-'], { env, input: sql })
    : await runClient('psql', [...args, '-c', sql], { env });
  const m = /(?:ERROR|FATAL):\s+([0-9A-Z]{5}): (.*)/.exec(result.stderr);
  return { ...result, ...(m ? { error: { code: m[1], message: m[2].trim() } } : {}) };
}

interface Step {
  session: string;
  sql?: string;
  params?: unknown[];
  prepare?: boolean;
  /** conn.commit() of a session that is not in autocommit mode. */
  commit?: boolean;
}
type StepResult =
  | { ok: true; status: string; rows: (string | null)[][] }
  | { ok: false; sqlstate: string | null; message: string };

/** psycopg (extended protocol) through the steps, sessions interleaved as given. */
async function psycopg(
  steps: Step[],
  sessions: Record<string, Record<string, string | boolean>> = { a: {} },
): Promise<StepResult[]> {
  const spec = {
    conninfo: {
      host: LOCAL_DSQL_HOST,
      port: local.model.port,
      user: ADMIN_USER,
      password: tokens.admin,
      dbname: 'postgres',
      sslmode: 'verify-full',
      sslrootcert: local.caPath,
    },
    sessions,
    steps,
  };
  const out = await runPythonClient<{ steps: StepResult[] }>('dsql_psycopg.py', [JSON.stringify(spec)]);
  return out.steps;
}

beforeAll(async () => {
  local = await startDsqlLocal();
  tokens = await runPythonClient('dsql_tokens.py', [LOCAL_DSQL_HOST], { env: sdkEnv() });
  // A table as DSQL takes one, for the cases to write to.
  const setup = await psql(
    [
      'CREATE TABLE conf_t (id int PRIMARY KEY, v int NOT NULL);',
      'INSERT INTO conf_t VALUES (1, 0), (2, 0), (3, 0);',
      `CREATE ROLE ${READER} WITH LOGIN;`,
      `GRANT SELECT ON conf_t TO ${READER};`,
    ].join('\n'),
    { script: true },
  );
  expect(setup.stderr).toBe('');
});

afterAll(async () => {
  await local?.stop();
});

describe('DSQL connections, with botocore tokens', () => {
  // AUTH: admin connects with a DbConnectAdmin token; other roles with DbConnect tokens.
  it('lets admin in with generate_db_connect_admin_auth_token and a role with generate_db_connect_auth_token', async () => {
    const admin = await psql('SELECT current_user, current_database()');
    expect(admin.stdout.trim()).toBe('admin|postgres');
    const reader = await psql('SELECT current_user, count(*) FROM conf_t', {
      user: READER,
      password: tokens.user,
    });
    expect(reader.stdout.trim()).toBe(`${READER}|3`);
  });

  // AUTH / troubleshooting: a token DSQL does not accept ends the connection with FATAL
  // "unable to accept connection, access denied" and the reason in a HINT; a DbConnect token for
  // admin is "Wrong user to action mapping".
  // https://docs.aws.amazon.com/aurora-dsql/latest/userguide/troubleshooting.html
  it('refuses a DbConnect token for admin, and a plain password, with FATAL access denied', async () => {
    const wrongAction = await psql('SELECT 1', { password: tokens.user });
    expect(wrongAction.code).not.toBe(0);
    expect(wrongAction.stderr).toContain('FATAL:  unable to accept connection, access denied');
    expect(wrongAction.stderr).toContain(
      'HINT:  Wrong user to action mapping. user: admin, action: DbConnect',
    );
    const viaPsycopg = await psycopg([{ session: 'a', sql: 'SELECT 1' }], { a: { password: 'hunter2' } });
    expect(viaPsycopg[0]).toMatchObject({
      ok: false,
      message: expect.stringContaining('unable to accept connection, access denied'),
    });
  });

  // UNSUPPORTED, "Aurora DSQL uses a single built-in database named postgres": any other name
  // is a database that does not exist (SQLSTATE 3D000).
  it('refuses template1, and the default database named after the user', async () => {
    const template = await psql('SELECT 1', { database: 'template1' });
    expect(template.code).not.toBe(0);
    expect(template.stderr).toContain('FATAL:  database "template1" does not exist');
    const implicit = await psql('SELECT 1', { database: null });
    expect(implicit.stderr).toContain('FATAL:  database "admin" does not exist');
    const viaPsycopg = await psycopg([{ session: 'a', sql: 'SELECT 1' }], { a: { dbname: 'template1' } });
    expect(viaPsycopg[0]).toMatchObject({
      ok: false,
      message: expect.stringContaining('"template1" does not exist'),
    });
  });

  // DSQL reports PostgreSQL 16 (`SELECT version()` answers `PostgreSQL 16`, recorded by users
  // against real clusters); the lab runs that major when scripts/ensure-postgres.sh fetched it.
  it('runs the PostgreSQL major DSQL reports', async () => {
    const version = await psql('SHOW server_version_num');
    expect(Math.floor(Number(version.stdout.trim()) / 10_000)).toBe(DSQL_POSTGRES_MAJOR);
  });

  // AUTH: admin is the cluster's administrator role, not a PostgreSQL superuser; nothing reaches
  // the engine but the front (the lab's rule: a private socket, no TCP listener).
  it('makes admin a role that is not a superuser, on an engine only the front can reach', async () => {
    const roles = await psql("SELECT rolsuper, rolcreaterole FROM pg_roles WHERE rolname = 'admin'");
    expect(roles.stdout.trim()).toBe('f|t');
    expect((await psql('SHOW listen_addresses')).stdout.trim()).toBe('');
    expect((await stat(local.engine.socketDir)).mode & 0o777).toBe(0o700);
  });
});

describe('what DSQL refuses, through psql (simple query protocol)', () => {
  // [case, SQL, SQLSTATE, message, source]
  const refusals: [string, string, string, string, string][] = [
    [
      'SERIAL',
      'CREATE TABLE conf_serial (id serial PRIMARY KEY)',
      '42704',
      'type "serial" does not exist',
      'UNSUPPORTED (sequences; measured)',
    ],
    [
      'CREATE SEQUENCE without a cache size',
      'CREATE SEQUENCE conf_seq',
      '0A000',
      'CREATE SEQUENCE is not supported without an explicit cache size. please define CACHE greater than or equal to 65536 or equal to 1',
      'RELEASE_NOTES (sequences)',
    ],
    [
      'CREATE TEMP TABLE',
      'CREATE TEMP TABLE conf_tmp (id int)',
      '0A000',
      'TEMPORARY or TEMP table not supported for CREATE TABLE',
      'UNSUPPORTED (temporary tables)',
    ],
    [
      'a foreign key added to an existing table without NOT VALID',
      'ALTER TABLE conf_t ADD CONSTRAINT conf_fk FOREIGN KEY (v) REFERENCES conf_t (id)',
      '0A000',
      'unsupported ALTER TABLE ADD CONSTRAINT statement',
      'FOREIGN_KEYS (existing tables: ADD CONSTRAINT ... NOT VALID)',
    ],
    [
      'CREATE INDEX without ASYNC',
      'CREATE INDEX conf_v ON conf_t (v)',
      '0A000',
      'unsupported mode. please use CREATE INDEX ASYNC.',
      'UNSUPPORTED (CREATE INDEX)',
    ],
    [
      'CREATE INDEX ASYNC ... USING',
      'CREATE INDEX ASYNC conf_v ON conf_t USING btree (v)',
      '0A000',
      'USING not supported for CREATE INDEX',
      'UNSUPPORTED (CREATE INDEX ASYNC)',
    ],
    [
      'CREATE EXTENSION',
      'CREATE EXTENSION IF NOT EXISTS pgcrypto',
      '0A000',
      'unsupported statement: CreateExtension',
      'UNSUPPORTED (extensions)',
    ],
    [
      'a plpgsql function',
      'CREATE FUNCTION conf_f() RETURNS int LANGUAGE plpgsql AS $$ BEGIN RETURN 1; END $$',
      '0A000',
      'CREATE FUNCTION with language plpgsql not supported',
      'UNSUPPORTED (functions in languages other than SQL)',
    ],
    [
      'a DO block',
      'DO $$ BEGIN PERFORM 1; END $$',
      '0A000',
      'unsupported statement: Do',
      'UNSUPPORTED (PL/pgSQL)',
    ],
    [
      'SET statement_timeout',
      "SET statement_timeout = '5s'",
      '0A000',
      'setting configuration parameter "statement_timeout" not supported',
      'UNSUPPORTED (session settings)',
    ],
    ['TRUNCATE', 'TRUNCATE conf_t', '0A000', 'unsupported statement: Truncate', 'UNSUPPORTED (TRUNCATE)'],
    [
      'ALTER TABLE ADD COLUMN with a default',
      "ALTER TABLE conf_t ADD COLUMN note text DEFAULT 'x'",
      '0A000',
      'ALTER TABLE ADD COLUMN with constraint not supported',
      'UNSUPPORTED (ALTER TABLE subsets)',
    ],
    [
      'ALTER TABLE ALTER COLUMN TYPE',
      'ALTER TABLE conf_t ALTER COLUMN v TYPE bigint',
      '0A000',
      'unsupported ALTER TABLE ALTER COLUMN ... SET DATA TYPE statement',
      'UNSUPPORTED (ALTER TABLE subsets)',
    ],
    [
      'GRANT on the public schema',
      `GRANT USAGE ON SCHEMA public TO ${READER}`,
      '0A000',
      'feature not supported on system entity',
      'UNSUPPORTED (system entities)',
    ],
    [
      'CREATE TRIGGER',
      'CREATE TRIGGER conf_trg BEFORE INSERT ON conf_t FOR EACH ROW EXECUTE FUNCTION conf_f()',
      '0A000',
      'CREATE TRIGGER not supported',
      'UNSUPPORTED (triggers)',
    ],
  ];
  it.each(refusals)('refuses %s', async (_name, sql, code, message) => {
    const result = await psql(sql);
    expect(result.error).toEqual({ code, message });
  });

  // Not a DSQL message of its own: DSQL's admin is not a superuser, so PostgreSQL's answer to a
  // role without pg_execute_server_program applies. The program must not run.
  it('refuses COPY ... TO PROGRAM, and the program does not run, neither through the front nor on the engine', async () => {
    const marker = join(tmpdir(), `dsql-conformance-${process.pid}`);
    await rm(marker, { force: true });
    const result = await psql(`COPY (SELECT 1) TO PROGRAM 'touch ${marker}'`);
    expect(result.error).toEqual({
      code: '42501',
      message: 'permission denied to COPY to or from an external program',
    });
    // Past the front, on PostgreSQL itself as admin: the role cannot either.
    const direct = socketClient(local.engine.socketDir, ADMIN_USER);
    await direct.connect();
    try {
      await expect(direct.query(`COPY (SELECT 1) TO PROGRAM 'touch ${marker}'`)).rejects.toMatchObject({
        code: '42501',
      });
    } finally {
      await direct.end();
    }
    expect(existsSync(marker)).toBe(false);
  });

  // DDL: "Aurora DSQL doesn't support DDL and DML in the same transaction", one DDL per transaction.
  it('refuses DML after DDL, and a second DDL, in one transaction', async () => {
    const mixed = await psql(
      'BEGIN;\nCREATE TABLE conf_mix (id int PRIMARY KEY);\nINSERT INTO conf_t VALUES (10, 0);\n',
      {
        script: true,
      },
    );
    expect(mixed.error).toEqual({
      code: '0A000',
      message: 'ddl and dml are not supported in the same transaction',
    });
    const twice = await psql(
      'BEGIN;\nCREATE TABLE conf_a (id int PRIMARY KEY);\nCREATE TABLE conf_b (id int PRIMARY KEY);\n',
      {
        script: true,
      },
    );
    expect(twice.error).toEqual({
      code: '0A000',
      message: 'multiple ddl statements not supported in a transaction',
    });
    // Nothing of either transaction stayed.
    const left = await psql(
      "SELECT count(*) FROM pg_tables WHERE tablename IN ('conf_mix', 'conf_a', 'conf_b')",
    );
    expect(left.stdout.trim()).toBe('0');
  });

  // What DSQL supports runs: CREATE INDEX ASYNC, a SQL function, sequences with a cache of 1 or
  // >= 65536, foreign keys in CREATE TABLE (RELEASE_NOTES 2026-08-26), SET search_path.
  it('runs the DSQL forms of the same things', async () => {
    const script = [
      'CREATE INDEX ASYNC conf_by_v ON conf_t (v);',
      'CREATE FUNCTION conf_sql() RETURNS int LANGUAGE sql AS $$ SELECT 1 $$;',
      'CREATE SEQUENCE conf_seq CACHE 65536;',
      'CREATE TABLE conf_child (id int PRIMARY KEY, t_id int REFERENCES conf_t (id));',
      'SET search_path = public;',
      'ALTER TABLE conf_t ADD COLUMN note text;',
      "SELECT indexname FROM pg_indexes WHERE indexname = 'conf_by_v';",
    ].join('\n');
    const result = await psql(script, { script: true });
    expect(result.stderr).toBe('');
    expect(result.stdout.trim()).toBe('conf_by_v');
  });
});

describe('what DSQL refuses, through psycopg (extended protocol)', () => {
  // The same rules hold when the SQL comes in a Parse message, with parameters and as named
  // prepared statements; a refused statement leaves the session usable.
  it('refuses in Parse, with and without prepare, and keeps the session usable', async () => {
    const out = await psycopg([
      { session: 'a', sql: 'CREATE INDEX conf_v2 ON conf_t (v)' },
      { session: 'a', sql: 'CREATE TEMP TABLE conf_tmp2 (id int)', prepare: true },
      { session: 'a', sql: 'DO $$ BEGIN PERFORM 1; END $$' },
      { session: 'a', sql: "COPY (SELECT 1) TO PROGRAM 'true'" },
      { session: 'a', sql: 'SELECT v FROM conf_t WHERE id = %s', params: [1], prepare: true },
      { session: 'a', sql: 'CREATE INDEX ASYNC IF NOT EXISTS conf_v3 ON conf_t (v)', prepare: true },
    ]);
    expect(out.slice(0, 4)).toEqual([
      { ok: false, sqlstate: '0A000', message: 'unsupported mode. please use CREATE INDEX ASYNC.' },
      { ok: false, sqlstate: '0A000', message: 'TEMPORARY or TEMP table not supported for CREATE TABLE' },
      { ok: false, sqlstate: '0A000', message: 'unsupported statement: Do' },
      { ok: false, sqlstate: '42501', message: 'permission denied to COPY to or from an external program' },
    ]);
    expect(out[4]).toMatchObject({ ok: true, rows: [['0']] });
    // The front's translation of CREATE INDEX ASYNC works in a Parse message too.
    expect(out[5]).toMatchObject({ ok: true, status: 'CREATE INDEX' });
  });

  // DDL: DDL and DML in one transaction is refused where the DML runs (Execute, with parameters).
  it('refuses DML after DDL in one transaction at Execute, then rolls back', async () => {
    const out = await psycopg([
      { session: 'a', sql: 'BEGIN' },
      { session: 'a', sql: 'CREATE TABLE conf_mix2 (id int PRIMARY KEY)' },
      { session: 'a', sql: 'INSERT INTO conf_t VALUES (%s, %s)', params: [11, 0], prepare: true },
      { session: 'a', sql: 'ROLLBACK' },
      { session: 'a', sql: "SELECT count(*) FROM pg_tables WHERE tablename = 'conf_mix2'" },
    ]);
    expect(out[2]).toEqual({
      ok: false,
      sqlstate: '0A000',
      message: 'ddl and dml are not supported in the same transaction',
    });
    expect(out[3]).toMatchObject({ ok: true });
    expect(out[4]).toMatchObject({ ok: true, rows: [['0']] });
  });

  it('refuses SET statement_timeout and lets SET search_path through', async () => {
    const out = await psycopg([
      { session: 'a', sql: "SET statement_timeout = '1s'" },
      { session: 'a', sql: 'SET search_path = public' },
    ]);
    expect(out[0]).toEqual({
      ok: false,
      sqlstate: '0A000',
      message: 'setting configuration parameter "statement_timeout" not supported',
    });
    expect(out[1]).toMatchObject({ ok: true });
  });
});

describe('optimistic concurrency', () => {
  // CONCURRENCY: two transactions write the same row; neither waits for the other; the one
  // that does not win gets SQLSTATE 40001 with "change conflicts with another transaction,
  // please retry: (OC000)" (DSQL: at its COMMIT; the lab: at its conflicting statement, see
  // the README), and the winner's write is what is stored.
  it('lets the first writer win and answers the other with 40001 OC000, without blocking', async () => {
    const out = await psycopg(
      [
        { session: 'a', sql: 'BEGIN' },
        { session: 'a', sql: 'UPDATE conf_t SET v = 1 WHERE id = 1' },
        { session: 'b', sql: 'BEGIN' },
        { session: 'b', sql: 'UPDATE conf_t SET v = 2 WHERE id = 1' },
        { session: 'a', sql: 'COMMIT' },
        { session: 'b', sql: 'COMMIT' },
        { session: 'a', sql: 'SELECT v FROM conf_t WHERE id = 1' },
      ],
      { a: {}, b: {} },
    );
    expect(out[1]).toMatchObject({ ok: true, status: 'UPDATE 1' });
    expect(out[4]).toMatchObject({ ok: true, status: 'COMMIT' });
    const loser = [out[3], out[5]].find((r) => !r.ok);
    expect(loser).toEqual({ ok: false, sqlstate: '40001', message: OC000 });
    expect(out[6]).toMatchObject({ ok: true, rows: [['1']] });
  });

  // CONCURRENCY: an autocommit write commits at once, so it wins against an open transaction
  // that wrote the same row; that transaction proceeds and fails at its COMMIT with 40001 OC000.
  it('lets an autocommit write win; the open transaction fails at COMMIT (extended protocol)', async () => {
    const out = await psycopg(
      [
        { session: 'a', sql: 'BEGIN' },
        { session: 'a', sql: 'UPDATE conf_t SET v = 5 WHERE id = 2' },
        { session: 'b', sql: 'UPDATE conf_t SET v = 6 WHERE id = 2' },
        { session: 'a', sql: 'SELECT 1' },
        { session: 'a', sql: 'COMMIT' },
        { session: 'a', sql: 'SELECT v FROM conf_t WHERE id = 2' },
      ],
      { a: {}, b: {} },
    );
    expect(out[2]).toMatchObject({ ok: true, status: 'UPDATE 1' });
    expect(out[3]).toMatchObject({ ok: true });
    expect(out[4]).toEqual({ ok: false, sqlstate: '40001', message: OC000 });
    // The session is idle and usable after the failed COMMIT; the winner's write stands.
    expect(out[5]).toMatchObject({ ok: true, rows: [['6']] });
  });

  it('fails the losing COMMIT the same way when it comes as a simple-protocol COMMIT', async () => {
    const out = await psycopg(
      [
        { session: 'a', sql: 'UPDATE conf_t SET v = 7 WHERE id = 3' },
        { session: 'b', sql: 'UPDATE conf_t SET v = 8 WHERE id = 3' },
        { session: 'a', commit: true },
        { session: 'b', sql: 'SELECT v FROM conf_t WHERE id = 3' },
      ],
      { a: { autocommit: false }, b: {} },
    );
    expect(out[1]).toMatchObject({ ok: true, status: 'UPDATE 1' });
    expect(out[2]).toEqual({ ok: false, sqlstate: '40001', message: OC000 });
    expect(out[3]).toMatchObject({ ok: true, rows: [['8']] });
  });
});
