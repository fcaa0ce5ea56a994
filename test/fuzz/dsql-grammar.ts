/**
 * What a client sends the DSQL front, as fast-check arbitraries: SQL statements from the dialect
 * DSQL documents (DDL one at a time, CREATE INDEX ASYNC, AWS IAM GRANT/REVOKE, DML, transaction
 * control) and the PostgreSQL features it refuses (TRUNCATE, temporary tables, SAVEPOINT, LOCK,
 * COPY, extensions, sequences ...), joined into multi-statement strings with the lexical corners
 * (comments, dollar quotes, quoted identifiers) a statement splitter must get right; and
 * PostgreSQL wire messages, well-formed or not, before and after authentication.
 *
 * https://docs.aws.amazon.com/aurora-dsql/latest/userguide/working-with-postgresql-compatibility-unsupported-features.html
 * https://www.postgresql.org/docs/16/protocol-message-formats.html
 */
import fc from 'fast-check';

/** The fixture table; generated SQL never names it. */
export const KEEP_TABLE = 'fuzz_keep';
const TABLES = ['fz_a', 'fz_b', '"fz;c"'];

const table = fc.constantFrom(...TABLES);
const column = fc.constantFrom('id', 'v', 'n', '"select"', 'ctid', 'nope');
const sqlString = fc
  .string({ maxLength: 10 })
  .map((s) => `'${s.replaceAll("'", "''").replaceAll('\0', '')}'`);
const literal = fc.oneof(
  fc.integer().map(String),
  sqlString,
  fc.constantFrom(
    'NULL',
    'true',
    "E'\\x41'",
    '$$a;b$$',
    '$t$;$t$',
    "'{}'::jsonb",
    '1e400',
    "'2016-01-01'::timestamptz",
  ),
  fc.integer({ min: 1, max: 3 }).map((i) => `$${i}`),
);
const predicate = fc.oneof(
  fc
    .tuple(column, fc.constantFrom('=', '<>', '<', '>=', 'LIKE', 'IS NOT DISTINCT FROM'), literal)
    .map(([c, op, v]) => `${c} ${op} ${v}`),
  fc.constantFrom('true', 'id IN (1, 2, 3)', 'v IS NULL', 'EXISTS (SELECT 1)'),
);
const where = fc.option(
  predicate.map((p) => ` WHERE ${p}`),
  { nil: '' },
);

const statement = fc.oneof(
  // DML and queries
  fc.tuple(table, literal, literal).map(([t, a, b]) => `INSERT INTO ${t} (id, v) VALUES (${a}, ${b})`),
  fc
    .tuple(table, literal, literal)
    .map(
      ([t, a, b]) =>
        `INSERT INTO ${t} (id, v) VALUES (${a}, ${b}) ON CONFLICT (id) DO UPDATE SET v = excluded.v`,
    ),
  fc.tuple(table, column, literal, where).map(([t, c, v, w]) => `UPDATE ${t} SET ${c} = ${v}${w}`),
  fc.tuple(table, where).map(([t, w]) => `DELETE FROM ${t}${w}`),
  fc.tuple(column, table, where).map(([c, t, w]) => `SELECT ${c} FROM ${t}${w}`),
  fc
    .tuple(table, where, fc.constantFrom('FOR UPDATE', 'FOR SHARE', 'FOR NO KEY UPDATE', ''))
    .map(([t, w, lock]) => `SELECT * FROM ${t}${w} ${lock}`),
  fc.array(literal, { minLength: 1, maxLength: 3 }).map((vs) => `SELECT ${vs.join(', ')}`),
  // DDL
  table.map((t) => `CREATE TABLE IF NOT EXISTS ${t} (id int PRIMARY KEY, v text, n numeric)`),
  table.map((t) => `CREATE TABLE ${t} (id serial PRIMARY KEY)`),
  table.map((t) => `CREATE TABLE ${t} (id int REFERENCES ${KEEP_TABLE}(id))`),
  fc.tuple(table, column).map(([t, c]) => `CREATE INDEX ASYNC ON ${t} (${c})`),
  fc.tuple(table, column).map(([t, c]) => `CREATE UNIQUE INDEX ASYNC IF NOT EXISTS fz_i ON ${t} (${c})`),
  fc.tuple(table, column).map(([t, c]) => `CREATE INDEX ON ${t} (${c})`),
  table.map((t) => `ALTER TABLE ${t} ADD COLUMN w int`),
  table.map((t) => `DROP TABLE IF EXISTS ${t}`),
  table.map((t) => `CREATE VIEW fz_v AS SELECT * FROM ${t}`),
  // What DSQL refuses
  table.map((t) => `TRUNCATE ${t}`),
  fc.constantFrom(
    'CREATE TEMPORARY TABLE fz_t (id int)',
    'CREATE SEQUENCE fz_s',
    'CREATE EXTENSION IF NOT EXISTS pgcrypto',
    'SAVEPOINT s1',
    'RELEASE SAVEPOINT s1',
    'LOCK TABLE fz_a',
    'VACUUM',
    'COPY fz_a FROM STDIN',
    'LISTEN fz',
    "NOTIFY fz, 'x'",
    'CREATE TRIGGER t BEFORE INSERT ON fz_a FOR EACH ROW EXECUTE FUNCTION f()',
    'CREATE DATABASE fz',
    'SET search_path = public',
    'SHOW transaction_isolation',
    'SET TRANSACTION ISOLATION LEVEL SERIALIZABLE',
  ),
  // Transactions and DSQL's own dialect
  fc.constantFrom('BEGIN', 'COMMIT', 'ROLLBACK', 'START TRANSACTION', 'END', 'ABORT', 'BEGIN READ ONLY'),
  fc.constantFrom(
    "AWS IAM GRANT fz_role TO 'arn:aws:iam::000000000000:role/fz'",
    "AWS IAM REVOKE fz_role FROM 'arn:aws:iam::000000000000:role/fz'",
    'AWS IAM GRANT',
  ),
);

/** A comment, a blank, or nothing between statements: where splitters go wrong. */
const separator = fc.constantFrom(';', '; ', ';\n', '; -- c;\n', '; /* a; /* nested; */ b */ ', ';;', '\n;');

const mutation = fc.tuple(
  fc.constantFrom('drop', 'insert', 'repeat'),
  fc.nat(),
  fc.constantFrom("'", '"', '$$', ';', '(', ')', '/*', '--', '\\', 'E', '\u00ff', ' ASYNC '),
);
function mutate(text: string, [kind, at, stray]: [string, number, string]): string {
  const i = text.length === 0 ? 0 : at % text.length;
  if (kind === 'drop') return text.slice(0, i) + text.slice(i + 1);
  if (kind === 'insert') return text.slice(0, i) + stray + text.slice(i);
  return text.slice(0, i) + text.slice(i, i + 8).repeat(2) + text.slice(i + 8);
}

/** One to three statements in one string, one in four broken; then how it is sent. */
export interface SqlInput {
  readonly sql: string;
  /** Extended protocol with these parameters; absent: a simple Query. */
  readonly values?: readonly unknown[];
}

export const sqlInput: fc.Arbitrary<SqlInput> = fc
  .tuple(
    fc.array(statement, { minLength: 1, maxLength: 3 }),
    separator,
    fc.option(mutation, { freq: 3 }),
    fc.option(
      fc.array(fc.oneof(fc.integer(), fc.string({ maxLength: 8 }), fc.constant(null)), { maxLength: 3 }),
      {
        freq: 2,
      },
    ),
  )
  .map(([statements, sep, m, values]) => {
    const joined = statements.join(sep);
    const sql = (m === null ? joined : mutate(joined, m)).replaceAll('\0', '');
    // The extended protocol takes one statement: what pg sends is Parse of the whole string.
    return values === null ? { sql } : { sql, values };
  });

// ---- the wire ----------------------------------------------------------------------------------

const int32 = (n: number) => {
  const b = Buffer.alloc(4);
  b.writeInt32BE(n | 0, 0);
  return b;
};
const typed = (type: number, body: Buffer, lengthDelta = 0) =>
  Buffer.concat([Buffer.from([type]), int32(body.length + 4 + lengthDelta), body]);
const cstr = (s: string) => Buffer.from(`${s}\0`, 'utf8');

/** PostgreSQL's StartupMessage (protocol 3.0) with these parameters. */
export function startupMessage(params: readonly (readonly [string, string])[]): Buffer {
  const body = Buffer.concat([
    ...params.map(([k, v]) => Buffer.concat([cstr(k), cstr(v)])),
    Buffer.from([0]),
  ]);
  return Buffer.concat([int32(body.length + 8), int32(196_608), body]);
}
/** A PasswordMessage carrying the token. */
export const passwordMessage = (token: string) => typed(0x70, cstr(token));

/** Before authentication: the untyped messages a connection opens with, right or wrong. */
const preAuth = fc.oneof(
  fc.constant(Buffer.from([0, 0, 0, 8, 0x04, 0xd2, 0x16, 0x2f])), // SSLRequest
  fc.constant(Buffer.from([0, 0, 0, 8, 0x04, 0xd2, 0x16, 0x30])), // GSSENCRequest
  fc
    .tuple(fc.integer(), fc.integer())
    .map(([pid, key]) => Buffer.concat([int32(16), int32(80_877_102), int32(pid), int32(key)])), // CancelRequest
  fc
    .array(
      fc.tuple(
        fc.constantFrom(
          'user',
          'database',
          'options',
          'application_name',
          'replication',
          'client_encoding',
          'x',
        ),
        fc.oneof(
          fc.constantFrom('admin', 'postgres', '-c statement_timeout=1', 'true', 'SQL_ASCII'),
          fc.string({ maxLength: 10 }),
        ),
      ),
      { maxLength: 4 },
    )
    .map((params) => startupMessage(params)),
  fc
    .tuple(fc.integer(), fc.integer(), fc.uint8Array({ maxLength: 24 }))
    .map(([length, code, body]) => Buffer.concat([int32(length), int32(code), Buffer.from(body)])),
  fc.uint8Array({ minLength: 1, maxLength: 32 }).map((b) => Buffer.from(b)),
);

/** After authentication: frontend messages with their bodies and lengths right or wrong. */
const typedMessage = fc.oneof(
  fc.string({ maxLength: 40 }).map((sql) => typed(0x51, cstr(sql))), // Query
  fc
    .tuple(
      fc.string({ maxLength: 6 }),
      fc.string({ maxLength: 40 }),
      fc.array(fc.integer(), { maxLength: 3 }),
    )
    .map(([name, sql, oids]) =>
      typed(0x50, Buffer.concat([cstr(name), cstr(sql), Buffer.from([0, oids.length]), ...oids.map(int32)])),
    ), // Parse
  fc
    .tuple(fc.string({ maxLength: 4 }), fc.string({ maxLength: 4 }), fc.uint8Array({ maxLength: 16 }))
    .map(([portal, stmt, rest]) => typed(0x42, Buffer.concat([cstr(portal), cstr(stmt), Buffer.from(rest)]))), // Bind
  fc
    .tuple(fc.string({ maxLength: 4 }), fc.integer())
    .map(([portal, rows]) => typed(0x45, Buffer.concat([cstr(portal), int32(rows)]))), // Execute
  fc
    .constantFrom('S', 'P')
    .chain((kind) =>
      fc.string({ maxLength: 4 }).map((name) => typed(0x44, Buffer.concat([Buffer.from(kind), cstr(name)]))),
    ), // Describe
  fc
    .constantFrom('S', 'P', '?')
    .chain((kind) =>
      fc.string({ maxLength: 4 }).map((name) => typed(0x43, Buffer.concat([Buffer.from(kind), cstr(name)]))),
    ), // Close
  fc.constant(typed(0x53, Buffer.alloc(0))), // Sync
  fc.constant(typed(0x48, Buffer.alloc(0))), // Flush
  fc.uint8Array({ maxLength: 16 }).map((b) => typed(0x46, Buffer.from(b))), // FunctionCall
  fc.uint8Array({ maxLength: 16 }).map((b) => typed(0x64, Buffer.from(b))), // CopyData
  fc.constant(typed(0x63, Buffer.alloc(0))), // CopyDone
  fc.constant(typed(0x58, Buffer.alloc(0))), // Terminate
  fc
    .tuple(
      fc.integer({ min: 0, max: 255 }),
      fc.uint8Array({ maxLength: 16 }),
      fc.integer({ min: -8, max: 8 }),
    )
    .map(([type, body, delta]) => typed(type, Buffer.from(body), delta)), // any type, length off by a little
  fc
    .tuple(fc.integer({ min: 0, max: 255 }), fc.integer())
    .map(([type, length]) => Buffer.concat([Buffer.from([type]), int32(length)])), // a length that lies
);

/** A connection's bytes: either a broken opening, or a good login followed by messages. */
export type WireInput =
  | { readonly phase: 'opening'; readonly bytes: readonly Buffer[] }
  | { readonly phase: 'session'; readonly messages: readonly Buffer[]; readonly split: number };

export const wireInput: fc.Arbitrary<WireInput> = fc.oneof(
  fc.array(preAuth, { minLength: 1, maxLength: 3 }).map((bytes) => ({ phase: 'opening' as const, bytes })),
  fc
    .tuple(fc.array(typedMessage, { minLength: 1, maxLength: 6 }), fc.nat({ max: 7 }))
    .map(([messages, split]) => ({ phase: 'session' as const, messages, split })),
);
