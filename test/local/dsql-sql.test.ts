/**
 * The DSQL front's statement classifier (targets/dsql/sql.ts): PostgreSQL's lexical rules
 * decide what is a keyword, so strings, comments, quoted names and dollar quoting never turn a
 * harmless statement into a refused one, or hide a refused one.
 */
import { describe, expect, it } from 'vitest';
import { classify, splitStatements, transactionRule } from '../../targets/dsql/sql';

const one = (sql: string) => {
  const statements = splitStatements(sql);
  expect(statements).toHaveLength(1);
  return classify(statements[0]);
};

describe('the DSQL statement classifier', () => {
  it('is not fooled by keywords inside strings, comments, quoted names or dollar quotes', () => {
    for (const sql of [
      "SELECT 'CREATE TEMP TABLE x; DO $$ $$'",
      "SELECT E'it\\'s; TRUNCATE t'",
      '/* CREATE EXTENSION x */ SELECT 1 -- DO',
      '/* nested /* TRUNCATE */ still a comment */ SELECT 1',
      'SELECT $$ DO $$, $tag$ CREATE INDEX i ON t (a) $tag$',
      'CREATE TABLE t ("serial" int PRIMARY KEY, note text DEFAULT \'serial\')',
      'CREATE FUNCTION f() RETURNS int LANGUAGE sql AS $$ SELECT 1 -- LANGUAGE plpgsql $$',
    ]) {
      expect(one(sql).refusal, sql).toBeUndefined();
    }
  });

  it('finds refused statements behind comments and odd spacing, and in a list of statements', () => {
    expect(one('/* x */ CREATE\n  /* y */ TEMPORARY TABLE t (a int)').refusal?.code).toBe('0A000');
    expect(one('create unique index i on t (a)').refusal?.message).toBe(
      'unsupported mode. please use CREATE INDEX ASYNC.',
    );
    expect(one("CREATE OR REPLACE FUNCTION f() RETURNS int LANGUAGE 'plpgsql' AS 'x'").refusal?.message).toBe(
      'CREATE FUNCTION with language plpgsql not supported',
    );
    expect(one('CREATE TABLE t (id bigserial)').refusal).toEqual({
      code: '42704',
      message: 'type "bigserial" does not exist',
    });
    expect(one('SET LOCAL lock_timeout = 0').refusal?.message).toBe(
      'setting configuration parameter "lock_timeout" not supported',
    );
    expect(one("COPY t FROM '/etc/passwd'").refusal?.code).toBe('42501');
    const statements = splitStatements('SELECT 1; ; DO $$ BEGIN END $$;');
    expect(statements.map((s) => classify(s).refusal?.message)).toEqual([
      undefined,
      'unsupported statement: Do',
    ]);
  });

  it('lets DSQL forms through and translates CREATE INDEX ASYNC', () => {
    expect(one('CREATE SEQUENCE s CACHE 1').refusal).toBeUndefined();
    expect(one('CREATE TABLE c (id int PRIMARY KEY, p int REFERENCES t (id))').refusal).toBeUndefined();
    expect(
      one('ALTER TABLE c ADD CONSTRAINT fk FOREIGN KEY (p) REFERENCES t (id) NOT VALID').refusal,
    ).toBeUndefined();
    expect(one('ALTER TABLE t ALTER COLUMN type SET NOT NULL').refusal).toBeUndefined();
    expect(one('SET TIME ZONE UTC').refusal).toBeUndefined();
    expect(one('CREATE UNIQUE INDEX ASYNC IF NOT EXISTS i ON t (a)')).toEqual({
      kind: 'ddl',
      rewritten: 'CREATE UNIQUE INDEX IF NOT EXISTS i ON t (a)',
    });
  });

  it("applies DSQL's one DDL, or DML, per transaction", () => {
    expect(transactionRule({ ddl: false, dml: false }, 'ddl')).toBeUndefined();
    expect(transactionRule({ ddl: true, dml: false }, 'ddl')?.message).toBe(
      'multiple ddl statements not supported in a transaction',
    );
    expect(transactionRule({ ddl: true, dml: false }, 'dml')?.message).toBe(
      'ddl and dml are not supported in the same transaction',
    );
    expect(transactionRule({ ddl: false, dml: true }, 'dml')).toBeUndefined();
    expect(transactionRule({ ddl: true, dml: false }, 'other')).toBeUndefined();
  });
});
