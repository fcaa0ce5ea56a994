/**
 * PartiQL statements as QLDB's PartiQL reference gives them, as fast-check arbitraries: SELECT
 * (projections, FROM with aliases, unnesting, history(), WHERE), INSERT, UPDATE ... SET/REMOVE,
 * DELETE, FROM-style DML, CREATE/DROP TABLE and CREATE INDEX, over an expression grammar of
 * literals (Ion in backticks, strings with any code point), paths, operators, CAST, EXTRACT,
 * DATE_ADD/DATE_DIFF, TO_STRING/TO_TIMESTAMP and the other functions the reference lists, with
 * `?` parameters. One statement in four is then broken on purpose (a character dropped or a
 * stray one inserted).
 *
 * https://docs.aws.amazon.com/qldb/latest/developerguide/ql-reference.html
 */
import fc from 'fast-check';

/** The fixture table; generated DML and DDL never name it. */
export const KEEP_TABLE = 'Keep';
/** The table generated DML writes. */
export const FUZZ_TABLE = 'Fuzz';

/** One statement and the parameters its `?` take (as the Node driver converts them to Ion). */
export interface QldbStatement {
  readonly text: string;
  readonly params: readonly unknown[];
}

const quote = (s: string) => `'${s.replaceAll("'", "''")}'`;
const FIELDS = ['id', 'n', 'l', 's', 'a', 'x', 'ts', 'VIN'];
const field = fc.constantFrom(...FIELDS);
const alias = fc.constantFrom('r', 'v', 'o');

const stringLiteral = fc
  .oneof(
    { weight: 4, arbitrary: fc.string({ maxLength: 12 }) },
    { weight: 2, arbitrary: fc.string({ maxLength: 12, unit: 'grapheme' }) },
    {
      weight: 1,
      arbitrary: fc.constantFrom('\ud800', 'a\udfffb', '%a_', '2016-02-01T', '13-2016', 'abc', ''),
    },
  )
  .map(quote);
const ionLiteral = fc
  .oneof(
    fc.constantFrom(
      '2016-01-01T',
      '2019-12-31T23:59:59.999Z',
      '2010-12-31T',
      '1d3',
      '1d3000',
      '-0d0',
      '1e308',
      'null.int',
      'null.timestamp',
      '{a:1, b:"x"}',
      '[1, 2.5, "s"]',
      'sym',
      'ann::1',
      '{{ aGVsbG8= }}',
      '0x7f',
    ),
    fc
      .date({
        min: new Date('0001-01-02T00:00:00Z'),
        max: new Date('9999-12-30T00:00:00Z'),
        noInvalidDate: true,
      })
      .map((d) => d.toISOString()),
  )
  .map((ion) => `\`${ion}\``);
const numberLiteral = fc.oneof(
  fc.integer().map(String),
  fc.bigInt({ min: -(2n ** 70n), max: 2n ** 70n }).map(String),
  fc
    .double({ noNaN: true, noDefaultInfinity: true })
    .map((d) => (Number.isInteger(d) ? `${d}.0` : String(d))),
  fc.constantFrom('0.1', '-7.25', '1e0', '1.5e-3', '99999999999999999999.99999'),
);
const literal = fc.oneof(
  { weight: 3, arbitrary: numberLiteral },
  { weight: 3, arbitrary: stringLiteral },
  { weight: 2, arbitrary: ionLiteral },
  { weight: 1, arbitrary: fc.constantFrom('NULL', 'MISSING', 'TRUE', 'FALSE', '?') },
);
const path = fc
  .tuple(
    alias,
    fc.array(
      fc.oneof(
        field.map((f) => `.${f}`),
        fc.nat({ max: 5 }).map((i) => `[${i}]`),
        field.map((f) => `['${f}']`),
      ),
      { minLength: 1, maxLength: 3 },
    ),
  )
  .map(([a, rest]) => a + rest.join(''));
const datePart = fc.constantFrom('year', 'month', 'day', 'hour', 'minute', 'second', 'timezone_hour', 'week');
const castType = fc.constantFrom(
  'NULL',
  'BOOL',
  'BOOLEAN',
  'INT',
  'INTEGER',
  'FLOAT',
  'DECIMAL',
  'STRING',
  'SYMBOL',
  'TIMESTAMP',
  'LIST',
  'STRUCT',
  'BAG',
  'BLOB',
  'CLOB',
);
const timeFormat = fc
  .oneof(
    fc.constantFrom(
      'yyyy-MM-dd',
      'MM-yyyy',
      'yy',
      "yyyy-MM-dd'T'HH:mm:ssXXXX",
      'h:m a',
      'MMMM d, y',
      'n',
      'SSS',
      'XXXXX',
    ),
    fc
      .array(
        fc.constantFrom('y', 'M', 'd', 'H', 'h', 'a', 'm', 's', 'S', 'n', 'X', 'x', '-', "'", ' ', 'Q'),
        {
          maxLength: 8,
        },
      )
      .map((c) => c.join('')),
  )
  .map(quote);
const binaryOp = fc.constantFrom(
  '+',
  '-',
  '*',
  '/',
  '%',
  '||',
  '=',
  '!=',
  '<>',
  '<',
  '<=',
  '>',
  '>=',
  'AND',
  'OR',
);
const FUNCTIONS = [
  'UPPER',
  'LOWER',
  'CHAR_LENGTH',
  'CHARACTER_LENGTH',
  'SIZE',
  'COALESCE',
  'NULLIF',
  'EXISTS',
  'UTCNOW',
  'TXID',
  'ABS',
];

/** An expression; `maxDepth` bounds its nesting. */
export function expression(maxDepth: number): fc.Arbitrary<string> {
  const { e } = fc.letrec<{ e: string }>((tie) => {
    const sub = tie('e');
    return {
      e: fc.oneof(
        { maxDepth, depthSize: 'small', withCrossShrink: true },
        literal,
        path,
        fc.tuple(sub, binaryOp, sub).map(([l, op, r]) => `${l} ${op} ${r}`),
        sub.map((x) => `(${x})`),
        sub.map((x) => `NOT ${x}`),
        sub.map((x) => `-${x}`),
        fc
          .tuple(sub, fc.constantFrom('IS NULL', 'IS NOT NULL', 'IS MISSING', 'IS NOT MISSING'))
          .map(([x, t]) => `${x} ${t}`),
        fc.tuple(sub, fc.array(sub, { maxLength: 4 })).map(([x, list]) => `${x} IN (${list.join(', ')})`),
        fc.tuple(sub, sub, sub).map(([x, lo, hi]) => `${x} BETWEEN ${lo} AND ${hi}`),
        fc.tuple(sub, stringLiteral).map(([x, p]) => `${x} LIKE ${p}`),
        fc
          .tuple(fc.constantFrom(...FUNCTIONS), fc.array(sub, { maxLength: 3 }))
          .map(([f, args]) => `${f}(${args.join(', ')})`),
        fc.tuple(sub, castType).map(([x, t]) => `CAST(${x} AS ${t})`),
        fc.tuple(datePart, sub).map(([p, x]) => `EXTRACT(${p} FROM ${x})`),
        fc.tuple(datePart, sub, sub).map(([p, n, t]) => `DATE_ADD(${p}, ${n}, ${t})`),
        fc.tuple(datePart, sub, sub).map(([p, a, b]) => `DATE_DIFF(${p}, ${a}, ${b})`),
        fc.tuple(sub, timeFormat).map(([t, f]) => `TO_STRING(${t}, ${f})`),
        fc
          .tuple(sub, fc.option(timeFormat))
          .map(([s, f]) => `TO_TIMESTAMP(${s}${f === null ? '' : `, ${f}`})`),
        fc
          .tuple(sub, sub, fc.option(sub))
          .map(([s, from, n]) => `SUBSTRING(${s}, ${from}${n === null ? '' : `, ${n}`})`),
        fc
          .tuple(fc.constantFrom('BOTH', 'LEADING', 'TRAILING', ''), sub)
          .map(([how, s]) => `TRIM(${how} ${how ? "' ' FROM " : ''}${s})`),
        fc
          .array(fc.tuple(field, sub), { maxLength: 3 })
          .map((kv) => `{${kv.map(([k, v]) => `'${k}': ${v}`).join(', ')}}`),
        fc.array(sub, { maxLength: 3 }).map((xs) => `[${xs.join(', ')}]`),
        fc.array(sub, { maxLength: 3 }).map((xs) => `<<${xs.join(', ')}>>`),
      ),
    };
  });
  return e;
}

const table = fc.constantFrom(
  FUZZ_TABLE,
  `_ql_committed_${FUZZ_TABLE}`,
  'information_schema.user_tables',
  'Nope',
);
/** Tables DDL may make or drop: never the fixture, nor the table DML writes. */
const ddlTable = fc.constantFrom('FuzzA', 'FuzzB', 'fuzz_c', 'select', 'x'.repeat(130));

function statement(maxDepth: number): fc.Arbitrary<string> {
  const e = expression(maxDepth);
  const where = fc.option(
    e.map((w) => ` WHERE ${w}`),
    { nil: '' },
  );
  const source = fc.oneof(
    fc.tuple(table, alias).map(([t, a]) => `${t} AS ${a}`),
    fc.constantFrom(KEEP_TABLE).map((t) => `${t} AS r`),
    fc
      .tuple(fc.constantFrom(KEEP_TABLE, FUZZ_TABLE), alias)
      .map(([t, a]) => `${t} AS r, @r.l AS ${a === 'r' ? 'o' : a}`),
    fc.constantFrom(
      `history(${FUZZ_TABLE}) AS r`,
      `history(${KEEP_TABLE}, \`2000T\`, \`2100T\`) AS r`,
      'history(Nope) AS r',
    ),
  );
  const projection = fc.oneof(
    fc.constant('*'),
    e.map((x) => `VALUE ${x}`),
    fc
      .array(fc.tuple(e, field), { minLength: 1, maxLength: 3 })
      .map((ps) => ps.map(([x, f]) => `${x} AS ${f}`).join(', ')),
    fc.constantFrom('COUNT(*)', 'r.*', 'SUM(r.n)', 'MAX(r.n), MIN(r.n)'),
  );
  return fc.oneof(
    {
      weight: 4,
      arbitrary: fc.tuple(projection, source, where).map(([p, s, w]) => `SELECT ${p} FROM ${s}${w}`),
    },
    { weight: 2, arbitrary: e.map((x) => `INSERT INTO ${FUZZ_TABLE} VALUE ${x}`) },
    {
      weight: 1,
      arbitrary: fc.array(e, { maxLength: 3 }).map((xs) => `INSERT INTO ${FUZZ_TABLE} <<${xs.join(', ')}>>`),
    },
    { weight: 1, arbitrary: fc.constant(`INSERT INTO ${FUZZ_TABLE} ?`) },
    {
      weight: 2,
      arbitrary: fc.tuple(path, e, where).map(([p, x, w]) => `UPDATE ${FUZZ_TABLE} AS r SET ${p} = ${x}${w}`),
    },
    {
      weight: 1,
      arbitrary: fc.tuple(path, where).map(([p, w]) => `UPDATE ${FUZZ_TABLE} AS r REMOVE ${p}${w}`),
    },
    { weight: 1, arbitrary: where.map((w) => `DELETE FROM ${FUZZ_TABLE} AS r${w}`) },
    {
      weight: 1,
      arbitrary: fc
        .tuple(
          where,
          fc.oneof(
            fc.tuple(path, e).map(([p, x]) => `SET ${p} = ${x}`),
            path.map((p) => `REMOVE ${p}`),
            e.map((x) => `INSERT INTO r.l VALUE ${x}`),
          ),
        )
        .map(([w, op]) => `FROM ${FUZZ_TABLE} AS r${w} ${op}`),
    },
    {
      weight: 1,
      arbitrary: fc.oneof(
        ddlTable.map((t) => `CREATE TABLE ${t}`),
        ddlTable.map((t) => `DROP TABLE ${t}`),
        fc.tuple(fc.constantFrom(FUZZ_TABLE, 'FuzzA'), field).map(([t, f]) => `CREATE INDEX ON ${t} (${f})`),
      ),
    },
    { weight: 1, arbitrary: e.map((x) => `SELECT VALUE ${x} FROM ${KEEP_TABLE} AS r`) },
  );
}

/** A character dropped, a stray one inserted, or a span repeated: a near miss of the grammar. */
const mutation = fc.tuple(
  fc.constantFrom('drop', 'insert', 'repeat'),
  fc.nat(),
  fc.constantFrom('(', ')', ',', '.', '[', '`', "'", '"', '<<', '--', '/*', '?', '@', '\u0000', '\ud800'),
);
function mutate(text: string, [kind, at, stray]: [string, number, string]): string {
  const i = text.length === 0 ? 0 : at % text.length;
  if (kind === 'drop') return text.slice(0, i) + text.slice(i + 1);
  if (kind === 'insert') return text.slice(0, i) + stray + text.slice(i);
  return text.slice(0, i) + text.slice(i, i + 8).repeat(2) + text.slice(i + 8);
}

/** A parameter as the driver takes it: a plain JS value it converts to Ion. */
const param = fc.oneof(
  fc.integer(),
  fc.double({ noNaN: true, noDefaultInfinity: true }),
  fc.string({ maxLength: 10 }),
  fc.boolean(),
  fc.constant(null),
  fc.dictionary(field, fc.oneof(fc.integer(), fc.string({ maxLength: 5 })), {
    maxKeys: 3,
    noNullPrototype: true,
  }),
  fc.array(fc.integer(), { maxLength: 3 }),
);

/** A statement (one in four broken) with as many parameters as its `?`, give or take one. */
export function qldbStatement(maxDepth: number): fc.Arbitrary<QldbStatement> {
  return fc
    .tuple(statement(maxDepth), fc.option(mutation, { freq: 3 }), fc.integer({ min: -1, max: 1 }))
    .chain(([text, m, skew]) => {
      const t = m === null ? text : mutate(text, m);
      const wanted = Math.max(0, (t.match(/\?/g)?.length ?? 0) + (m === null ? 0 : skew));
      return fc.array(param, { minLength: wanted, maxLength: wanted }).map((params) => ({ text: t, params }));
    });
}
