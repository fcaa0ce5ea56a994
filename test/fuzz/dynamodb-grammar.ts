/**
 * DynamoDB requests from the expression grammar, as fast-check arbitraries: condition trees
 * (comparisons, BETWEEN, IN, the functions, AND/OR/NOT, parentheses), key conditions, update
 * expressions (SET/REMOVE/ADD/DELETE), projections, and the ExpressionAttributeNames and
 * ExpressionAttributeValues maps they name. Some inputs are then broken on purpose (a character
 * dropped or inserted, a placeholder left out of its map) so the parser's error paths are fed too.
 *
 * The grammar follows the developer guide:
 * https://docs.aws.amazon.com/amazondynamodb/latest/developerguide/Expressions.OperatorsAndFunctions.html
 * https://docs.aws.amazon.com/amazondynamodb/latest/developerguide/Expressions.UpdateExpressions.html
 * https://docs.aws.amazon.com/amazondynamodb/latest/developerguide/Expressions.ProjectionExpressions.html
 */
import fc from 'fast-check';

export const FUZZ_TABLE = 'FuzzTable';
/** The fixture's partition key; generated writes never name it (they use FUZZ_KEYS). */
export const KEEP_KEY = 'keep';
const FUZZ_KEYS = ['fuzz-a', 'fuzz-b'] as const;

/** One DynamoDB call: the X-Amz-Target operation and its JSON body. */
export interface DynamoCall {
  readonly operation: string;
  readonly body: Record<string, unknown>;
}

type Json = Record<string, unknown>;

const NAMES = ['a', 'n', 'l', 'm', 'ss', 'pk', 'sk', 'x', 'status', 'size', 'a1_b'];
const NAME_PLACEHOLDERS = ['#n0', '#n1', '#n2'];
const VALUE_PLACEHOLDERS = [':v0', ':v1', ':v2'];

const name = fc.oneof(fc.constantFrom(...NAMES), fc.constantFrom(...NAME_PLACEHOLDERS));
/** a, #n0, a.b, a[3], a.b[0][12].c: a document path. */
const path: fc.Arbitrary<string> = fc
  .tuple(
    name,
    fc.array(
      fc.oneof(
        name.map((n) => `.${n}`),
        fc.nat({ max: 20 }).map((i) => `[${i}]`),
      ),
      { maxLength: 3 },
    ),
  )
  .map(([head, rest]) => head + rest.join(''));
const value = fc.constantFrom(...VALUE_PLACEHOLDERS);
const operand = fc.oneof(
  { weight: 3, arbitrary: path },
  { weight: 3, arbitrary: value },
  {
    weight: 1,
    arbitrary: path.map((p) => `size(${p})`),
  },
);
const comparator = fc.constantFrom('=', '<>', '<', '<=', '>', '>=');
const typeName = fc.oneof(
  fc.constantFrom('S', 'SS', 'N', 'NS', 'B', 'BS', 'BOOL', 'NULL', 'L', 'M').map((t) => `'${t}'`),
  value,
);

const leafCondition: fc.Arbitrary<string> = fc.oneof(
  fc.tuple(operand, comparator, operand).map(([l, c, r]) => `${l} ${c} ${r}`),
  fc.tuple(operand, operand, operand).map(([o, lo, hi]) => `${o} BETWEEN ${lo} AND ${hi}`),
  fc
    .tuple(operand, fc.array(operand, { minLength: 1, maxLength: 5 }))
    .map(([o, list]) => `${o} IN (${list.join(', ')})`),
  path.map((p) => `attribute_exists(${p})`),
  path.map((p) => `attribute_not_exists(${p})`),
  fc.tuple(path, typeName).map(([p, t]) => `attribute_type(${p}, ${t})`),
  fc.tuple(path, operand).map(([p, o]) => `begins_with(${p}, ${o})`),
  fc.tuple(path, operand).map(([p, o]) => `contains(${p}, ${o})`),
);

/** A condition tree; `maxDepth` bounds how deep AND/OR/NOT/parentheses nest. */
export function condition(maxDepth: number): fc.Arbitrary<string> {
  const { tree } = fc.letrec<{ tree: string }>((tie) => ({
    tree: fc.oneof(
      { maxDepth, depthSize: 'small', withCrossShrink: true },
      leafCondition,
      fc.tuple(tie('tree'), tie('tree')).map(([l, r]) => `${l} AND ${r}`),
      fc.tuple(tie('tree'), tie('tree')).map(([l, r]) => `${l} OR ${r}`),
      tie('tree').map((c) => `NOT ${c}`),
      tie('tree').map((c) => `(${c})`),
    ),
  }));
  return tree;
}

/** `a < b OR (a < b OR (...))`, `depth` levels: the shape whose parse time grows with each level. */
export const nestedChain = (depth: number): string =>
  `${'a < b OR ('.repeat(depth)}a < b${')'.repeat(depth)}`;

const keyCondition = fc.oneof(
  value.map((v) => `pk = ${v}`),
  fc.tuple(value, comparator, value).map(([v, c, w]) => `pk = ${v} AND sk ${c} ${w}`),
  fc.tuple(value, value, value).map(([v, lo, hi]) => `pk = ${v} AND sk BETWEEN ${lo} AND ${hi}`),
  fc.tuple(value, value).map(([v, w]) => `#n0 = ${v} AND begins_with(sk, ${w})`),
  leafCondition,
);

const setValue = fc.oneof(
  operand,
  fc.tuple(operand, fc.constantFrom('+', '-'), operand).map(([l, op, r]) => `${l} ${op} ${r}`),
  fc.tuple(path, operand).map(([p, o]) => `if_not_exists(${p}, ${o})`),
  fc.tuple(operand, operand).map(([l, r]) => `list_append(${l}, ${r})`),
);
const updateClause = fc.oneof(
  fc
    .array(
      fc.tuple(path, setValue).map(([p, v]) => `${p} = ${v}`),
      { minLength: 1, maxLength: 3 },
    )
    .map((s) => `SET ${s.join(', ')}`),
  fc.array(path, { minLength: 1, maxLength: 3 }).map((p) => `REMOVE ${p.join(', ')}`),
  fc
    .array(
      fc.tuple(path, value).map(([p, v]) => `${p} ${v}`),
      { minLength: 1, maxLength: 2 },
    )
    .map((a) => `ADD ${a.join(', ')}`),
  fc
    .array(
      fc.tuple(path, value).map(([p, v]) => `${p} ${v}`),
      { minLength: 1, maxLength: 2 },
    )
    .map((a) => `DELETE ${a.join(', ')}`),
);
const updateExpression = fc.array(updateClause, { minLength: 1, maxLength: 3 }).map((c) => c.join(' '));
const projection = fc.array(path, { minLength: 1, maxLength: 4 }).map((p) => p.join(', '));

/** A character dropped, a stray one inserted, or a span repeated: a near miss of the grammar. */
const mutation = fc.tuple(
  fc.constantFrom('drop', 'insert', 'repeat'),
  fc.nat(),
  fc.constantFrom('(', ')', ',', '.', '[', ']', ':', '#', '=', '<', ' ', 'AND', 'OR', 'NOT', '\u0000', '"'),
);
const mutate = (text: string, [kind, at, stray]: [string, number, string]): string => {
  const i = text.length === 0 ? 0 : at % text.length;
  if (kind === 'drop') return text.slice(0, i) + text.slice(i + 1);
  if (kind === 'insert') return text.slice(0, i) + stray + text.slice(i);
  return text.slice(0, i) + text.slice(i, i + 8).repeat(2) + text.slice(i + 8);
};
/** Mostly well-formed; one input in four is a near miss. */
const maybeBroken = (expr: fc.Arbitrary<string>) =>
  fc.tuple(expr, fc.option(mutation, { freq: 3 })).map(([text, m]) => (m === null ? text : mutate(text, m)));

const scalarN = fc.oneof(
  fc.integer().map(String),
  fc.double({ noNaN: true, noDefaultInfinity: true }).map(String),
  fc.constantFrom('1e125', '1e126', '-1e-130', '0.000', '99999999999999999999999999999999999999', 'abc', ''),
);
/** An AttributeValue, sometimes not a valid one ({}, two types, a wrong type inside). */
const attributeValue: fc.Arbitrary<unknown> = fc.letrec<{ av: unknown }>((tie) => ({
  av: fc.oneof(
    { maxDepth: 3, depthSize: 'small' },
    fc.string({ maxLength: 20, unit: 'binary' }).map((S) => ({ S })),
    scalarN.map((N) => ({ N })),
    fc.uint8Array({ maxLength: 16 }).map((b) => ({ B: Buffer.from(b).toString('base64') })),
    fc.boolean().map((BOOL) => ({ BOOL })),
    fc.constant({ NULL: true }),
    fc.array(fc.string({ maxLength: 6 }), { maxLength: 4 }).map((SS) => ({ SS })),
    fc.array(scalarN, { maxLength: 4 }).map((NS) => ({ NS })),
    fc.array(tie('av'), { maxLength: 3 }).map((L) => ({ L })),
    fc.dictionary(fc.constantFrom(...NAMES), tie('av'), { maxKeys: 3 }).map((M) => ({ M })),
    fc.constantFrom({}, { S: 1 }, { N: 'x' }, { S: 'a', N: '1' }, { BOOL: 'yes' }, { L: 'no' }),
  ),
})).av;

/**
 * The maps for the placeholders an expression uses: each one it names, most of the time; now
 * and then one left out or one it does not use (both ValidationExceptions in DynamoDB).
 */
function mapsFor(exprs: readonly (string | undefined)[]): fc.Arbitrary<Json> {
  const text = exprs.filter(Boolean).join(' ');
  const used = (re: RegExp) => [...new Set(text.match(re) ?? [])];
  const names = used(/#\w+/g);
  const values = used(/:\w+/g);
  return fc
    .record({
      nameValues: fc.array(fc.oneof(fc.constantFrom(...NAMES), fc.string({ minLength: 0, maxLength: 12 })), {
        minLength: names.length,
        maxLength: names.length,
      }),
      valueValues: fc.array(attributeValue, { minLength: values.length, maxLength: values.length }),
      drop: fc.option(fc.nat(), { freq: 5 }),
      extraName: fc.option(fc.constant('#unused'), { freq: 8 }),
    })
    .map(({ nameValues, valueValues, drop, extraName }) => {
      const n: Json = Object.fromEntries(names.map((k, i) => [k, nameValues[i]]));
      const v: Json = Object.fromEntries(values.map((k, i) => [k, valueValues[i]]));
      if (drop !== null) {
        const all = [...names.map((k) => [n, k] as const), ...values.map((k) => [v, k] as const)];
        if (all.length > 0) {
          const [map, key] = all[drop % all.length];
          delete map[key];
        }
      }
      if (extraName !== null) n[extraName] = 'x';
      const out: Json = {};
      if (Object.keys(n).length > 0) out.ExpressionAttributeNames = n;
      if (Object.keys(v).length > 0) out.ExpressionAttributeValues = v;
      return out;
    });
}

const fuzzKey = fc
  .tuple(fc.constantFrom(...FUZZ_KEYS), fc.integer({ min: 0, max: 3 }))
  .map(([pk, sk]) => ({ pk: { S: pk }, sk: { N: String(sk) } }));
const anyKey = fc.oneof(
  fuzzKey,
  fc.constant({ pk: { S: KEEP_KEY }, sk: { N: '1' } }),
  fc.record({ pk: attributeValue }),
);
const itemAttributes = fc.dictionary(fc.constantFrom('a', 'n', 'l', 'm', 'ss', 'x'), attributeValue, {
  maxKeys: 4,
});

/** Expressions, then the maps for their placeholders. */
function withMaps(
  operation: string,
  parts: fc.Arbitrary<Json>,
  exprKeys: readonly string[],
): fc.Arbitrary<DynamoCall> {
  return parts.chain((body) =>
    mapsFor(exprKeys.map((k) => body[k] as string | undefined)).map((maps) => ({
      operation,
      body: { TableName: FUZZ_TABLE, ...body, ...maps },
    })),
  );
}

/**
 * One request of the six that take expressions; writes only ever name the fuzz keys. `maxDepth`
 * bounds the random trees, `maxChain` the nested OR chains (nestedChain) a Scan filters with.
 */
export function dynamoCall(maxDepth: number, maxChain: number): fc.Arbitrary<DynamoCall> {
  const cond = maybeBroken(condition(maxDepth));
  return fc.oneof(
    fc.integer({ min: 1, max: maxChain }).map((depth) => ({
      operation: 'Scan',
      body: { TableName: FUZZ_TABLE, FilterExpression: nestedChain(depth) },
    })),
    withMaps(
      'PutItem',
      fc.record({
        Item: fc.tuple(fuzzKey, itemAttributes).map(([k, a]) => ({ ...a, ...k })),
        ConditionExpression: cond,
      }),
      ['ConditionExpression'],
    ),
    withMaps(
      'UpdateItem',
      fc.record(
        {
          Key: fuzzKey,
          UpdateExpression: maybeBroken(updateExpression),
          ConditionExpression: cond,
          ReturnValues: fc.constantFrom('NONE', 'ALL_OLD', 'UPDATED_NEW', 'ALL_NEW'),
        },
        { requiredKeys: ['Key', 'UpdateExpression'] },
      ),
      ['UpdateExpression', 'ConditionExpression'],
    ),
    withMaps('DeleteItem', fc.record({ Key: fuzzKey, ConditionExpression: cond }), ['ConditionExpression']),
    withMaps('GetItem', fc.record({ Key: anyKey, ProjectionExpression: maybeBroken(projection) }), [
      'ProjectionExpression',
    ]),
    withMaps(
      'Query',
      fc.record(
        {
          KeyConditionExpression: maybeBroken(keyCondition),
          FilterExpression: cond,
          ProjectionExpression: projection,
          Limit: fc.integer({ min: 1, max: 5 }),
        },
        { requiredKeys: ['KeyConditionExpression'] },
      ),
      ['KeyConditionExpression', 'FilterExpression', 'ProjectionExpression'],
    ),
    withMaps(
      'Scan',
      fc.record({ FilterExpression: cond, ProjectionExpression: projection }, { requiredKeys: [] }),
      ['FilterExpression', 'ProjectionExpression'],
    ),
  );
}
