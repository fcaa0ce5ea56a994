/**
 * The scalar functions QLDB lists (https://docs.aws.amazon.com/qldb/latest/developerguide/ql-functions.html)
 * and CAST: string (CHAR_LENGTH, CHARACTER_LENGTH, LOWER, UPPER, SUBSTRING, TRIM), conditional
 * (COALESCE, NULLIF, EXISTS of a value; EXISTS of a subquery is an expression), date and time (DATE_ADD, DATE_DIFF, EXTRACT, TO_STRING,
 * TO_TIMESTAMP, UTCNOW: their arguments checked here, the timestamp arithmetic and patterns in
 * partiql-timestamps.ts), scalar (TXID, SIZE), and CAST. Unless stated otherwise a NULL or MISSING
 * argument makes the result NULL, as the functions page says.
 */
import { Decimal, dom, IonTypes, Timestamp } from 'ion-js';
import { QldbError } from './errors';
import { exactDecimal, isNumeric } from './ion-compare';
import {
  dateAdd,
  dateDiff,
  extract,
  formatTimestamp,
  parseWithPattern,
  utcTimestamp,
} from './partiql-timestamps';
import {
  bool,
  compareNumbers,
  elementsOf,
  int,
  isBag,
  isText,
  NULL,
  str,
  typeName,
  unknown,
  type Val,
} from './partiql-values';

export interface FunctionContext {
  readonly txId: string;
  readonly now: number;
  /** Throws QLDB's error for a bad argument at the call's position. */
  fail(message: string): never;
}

export const AGGREGATES = new Set(['COUNT', 'SUM', 'AVG', 'MIN', 'MAX']);

/** Names the evaluator knows; any other call is refused as QLDB refused unknown functions. */
export const SCALAR_FUNCTIONS = new Set([
  'CHAR_LENGTH',
  'CHARACTER_LENGTH',
  'LOWER',
  'UPPER',
  'SUBSTRING',
  'TRIM',
  'COALESCE',
  'NULLIF',
  'EXISTS',
  'DATE_ADD',
  'DATE_DIFF',
  'EXTRACT',
  'TO_STRING',
  'TO_TIMESTAMP',
  'UTCNOW',
  'TXID',
  'SIZE',
]);

function text(v: dom.Value, ctx: FunctionContext, fn: string): string {
  if (!isText(v)) ctx.fail(`${fn} expects a string, got ${typeName(v)}`);
  return v.stringValue() ?? '';
}

function integer(v: dom.Value, ctx: FunctionContext, fn: string): number {
  if (v.getType() === IonTypes.INT) return Number(v.bigIntValue());
  if (isNumeric(v)) return Math.trunc(v.numberValue() ?? 0);
  return ctx.fail(`${fn} expects an integer, got ${typeName(v)}`);
}

function timestamp(v: dom.Value, ctx: FunctionContext, fn: string): Timestamp {
  const t = v.getType() === IonTypes.TIMESTAMP ? v.timestampValue() : null;
  if (!t) return ctx.fail(`${fn} expects a timestamp, got ${typeName(v)}`);
  return t;
}

/**
 * Arguments each fixed-signature function takes, [fewest, most], as the reference's signatures
 * give them; a call outside that is refused before any argument is read. The message is the
 * PartiQL reference implementation's (org.partiql's IncorrectNumberOfArgumentsToFunctionCall).
 */
const ARITY: Readonly<Record<string, readonly [number, number]>> = {
  CHAR_LENGTH: [1, 1],
  CHARACTER_LENGTH: [1, 1],
  LOWER: [1, 1],
  UPPER: [1, 1],
  SIZE: [1, 1],
  TO_STRING: [2, 2],
  TO_TIMESTAMP: [1, 2],
};

/** Code points, as CHAR_LENGTH and SUBSTRING count them. */
const codePoints = (s: string) => Array.from(s);

export function callScalar(
  name: string,
  args: readonly Val[],
  keyword: string | undefined,
  ctx: FunctionContext,
): Val {
  const arity = ARITY[name];
  if (arity && (args.length < arity[0] || args.length > arity[1]))
    ctx.fail(
      `Incorrect number of arguments for '${name.toLowerCase()}'. Expected ${arity[0]}..${arity[1]} but was supplied ${args.length}.`,
    );
  switch (name) {
    case 'COALESCE': {
      for (const a of args) if (!unknown(a)) return a;
      return NULL;
    }
    case 'NULLIF': {
      if (args.length !== 2) ctx.fail('NULLIF takes two arguments');
      const [a, b] = args;
      if (unknown(a)) return NULL;
      if (!unknown(b) && equalKnown(a as dom.Value, b as dom.Value)) return NULL;
      return a;
    }
    case 'EXISTS': {
      // ql-functions.exists.html: TRUE for a non-empty collection (list, s-expression, struct,
      // bag), FALSE for anything else including null; "EXISTS(missing) -- error".
      if (args.length !== 1) ctx.fail('EXISTS takes one argument');
      const v = args[0];
      if (v === undefined) return ctx.fail('EXISTS of MISSING is an error');
      if (v.isNull()) return bool(false);
      const t = v.getType();
      const container = t === IonTypes.LIST || t === IonTypes.SEXP || t === IonTypes.STRUCT;
      return bool(container && elementsOf(v).length > 0);
    }
    case 'UTCNOW':
      return new dom.Timestamp(utcTimestamp(ctx.now));
    case 'TXID':
      return str(ctx.txId);
  }
  if (args.some(unknown)) return NULL;
  const a = args as readonly dom.Value[];
  switch (name) {
    case 'CHAR_LENGTH':
    case 'CHARACTER_LENGTH':
      return int(codePoints(text(a[0], ctx, name)).length);
    case 'LOWER':
      return str(text(a[0], ctx, name).toLowerCase());
    case 'UPPER':
      return str(text(a[0], ctx, name).toUpperCase());
    case 'SUBSTRING': {
      const chars = codePoints(text(a[0], ctx, name));
      // SQL: positions start at 1; a start before 1 shortens the length it covers.
      const start = a.length > 1 ? integer(a[1], ctx, name) : 1;
      const length = a.length > 2 ? integer(a[2], ctx, name) : undefined;
      if (length !== undefined && length < 0) ctx.fail('SUBSTRING length must not be negative');
      const from = Math.max(start, 1);
      const to = length === undefined ? chars.length + 1 : Math.max(start + length, 1);
      return str(chars.slice(from - 1, Math.max(to - 1, from - 1)).join(''));
    }
    case 'TRIM': {
      const s = text(a[0], ctx, name);
      const chars = new Set(codePoints(a.length > 1 ? text(a[1], ctx, name) : ' '));
      const cps = codePoints(s);
      let i = 0;
      let j = cps.length;
      if (keyword !== 'TRAILING') while (i < j && chars.has(cps[i])) i++;
      if (keyword !== 'LEADING') while (j > i && chars.has(cps[j - 1])) j--;
      return str(cps.slice(i, j).join(''));
    }
    case 'SIZE': {
      const v = a[0];
      const t = v.getType();
      if (t === IonTypes.LIST || t === IonTypes.SEXP || t === IonTypes.STRUCT || isBag(v)) {
        return int(elementsOf(v).length);
      }
      return ctx.fail(`SIZE expects a container (list, sexp, struct or bag), got ${typeName(v)}`);
    }
    case 'EXTRACT':
      return extract(keyword ?? '', timestamp(a[0], ctx, name));
    case 'DATE_ADD': {
      const n = integer(a[0], ctx, name);
      const t = timestamp(a[1], ctx, name);
      return new dom.Timestamp(
        ionChecked(ctx, 'DATE_ADD: the result is not a timestamp Ion can hold (years 0001 to 9999)', () =>
          dateAdd(keyword ?? '', n, t),
        ),
      );
    }
    case 'DATE_DIFF':
      return int(dateDiff(keyword ?? '', timestamp(a[0], ctx, name), timestamp(a[1], ctx, name)));
    case 'TO_STRING':
      return str(formatTimestamp(timestamp(a[0], ctx, name), text(a[1], ctx, name), ctx));
    case 'TO_TIMESTAMP': {
      const s = text(a[0], ctx, name);
      const pattern = a.length > 1 ? text(a[1], ctx, name) : undefined;
      const t = ionChecked(ctx, `TO_TIMESTAMP cannot parse '${s}'`, () =>
        pattern !== undefined ? parseWithPattern(s, pattern, ctx) : Timestamp.parse(s),
      );
      if (!t) return ctx.fail(`TO_TIMESTAMP cannot parse '${s}'`);
      return new dom.Timestamp(t);
    }
  }
  return ctx.fail(`No such function: ${name}`);
}

/**
 * Runs an ion-js constructor or parser over values the statement supplied: ion-js throws a plain
 * Error for an out-of-range field (month 13, year 12017, a decimal that is not one), which is the
 * statement's fault and answers as QLDB's evaluation error.
 */
function ionChecked<T>(ctx: FunctionContext, message: string, make: () => T): T {
  try {
    return make();
  } catch (err) {
    if (err instanceof QldbError) throw err;
    return ctx.fail(`${message}: ${(err as Error).message}`);
  }
}

function equalKnown(a: dom.Value, b: dom.Value): boolean {
  if (isNumeric(a) && isNumeric(b)) return compareNumbers(a, b) === 0;
  return a.ionEquals(b, { ignoreAnnotations: true });
}

/** CAST(v AS type), as PartiQL defines it for Ion's types. */
export function cast(v: Val, type: string, ctx: FunctionContext): Val {
  // ql-functions.cast.html: "CAST(missing AS null) -- null", "CAST(null AS missing) -- missing",
  // any other target keeps the unknown as it is; "CAST(1 AS null) -- error".
  if (v === undefined) return type === 'NULL' ? NULL : undefined;
  if (v.isNull()) return type === 'MISSING' ? undefined : NULL;
  const t = v.getType();
  const fail = (): never => ctx.fail(`Cannot cast ${typeName(v)} to ${type}`);
  switch (type) {
    case 'NULL':
    case 'MISSING':
      return fail();
    case 'BOOL':
    case 'BOOLEAN':
      if (t === IonTypes.BOOL) return v;
      if (isNumeric(v)) return bool(compareNumbers(v, int(0)) !== 0);
      // "CAST('a' AS boolean) -- false", "CAST('true' AS boolean) -- true".
      if (isText(v)) return bool((v.stringValue() ?? '').toLowerCase() === 'true');
      return fail();
    case 'INT':
    case 'INTEGER':
    case 'SMALLINT':
    case 'INT4':
    case 'INT8':
    case 'BIGINT':
      if (t === IonTypes.INT) return v;
      if (t === IonTypes.BOOL) return int(v.booleanValue() ? 1 : 0);
      if (t === IonTypes.FLOAT) {
        const n = v.numberValue() ?? 0;
        if (!Number.isFinite(n)) return fail();
        return int(Math.trunc(n));
      }
      if (t === IonTypes.DECIMAL) {
        const d = exactDecimal(v);
        const e = d.getExponent();
        let c = d.getCoefficient();
        if (c < 0n) c = -c;
        // PartiQL's INT is 64-bit: a decimal of more than 19 integer digits cannot fit (and
        // `1d3000000` must not be expanded to find that out).
        if (c !== 0n && c.toString().length + e > 19)
          return ctx.fail(`Int overflow or underflow casting ${typeName(v)} to ${type}`);
        const whole = e >= 0 ? c * 10n ** BigInt(e) : c / 10n ** BigInt(-e);
        return int(d.isNegative() ? -whole : whole);
      }
      if (isText(v)) {
        const s = (v.stringValue() ?? '').trim();
        if (/^[+-]?[0-9]+$/.test(s)) return int(BigInt(s));
      }
      return fail();
    case 'FLOAT':
    case 'REAL':
    case 'DOUBLE PRECISION':
      if (t === IonTypes.FLOAT) return v;
      if (isNumeric(v)) return new dom.Float(v.numberValue() ?? 0);
      if (t === IonTypes.BOOL) return new dom.Float(v.booleanValue() ? 1 : 0);
      if (isText(v)) {
        const n = Number((v.stringValue() ?? '').trim());
        if (!Number.isNaN(n)) return new dom.Float(n);
      }
      return fail();
    case 'DECIMAL':
    case 'NUMERIC':
      if (t === IonTypes.DECIMAL) return v;
      if (t === IonTypes.INT) return new dom.Decimal(exactDecimal(v));
      if (t === IonTypes.FLOAT) {
        const n = v.numberValue() ?? 0;
        if (!Number.isFinite(n)) return fail();
        return new dom.Decimal(new Decimal(String(n).replace(/e\+?/, 'd')));
      }
      if (t === IonTypes.BOOL) return new dom.Decimal(new Decimal(v.booleanValue() ? 1 : 0, 0));
      if (isText(v)) {
        // A SQL number ('1.5', '-2', '3e4'); Ion's decimal parser throws on anything else.
        const text = (v.stringValue() ?? '').trim();
        if (/^[+-]?(?:[0-9]+\.?[0-9]*|\.[0-9]+)(?:[eEdD][+-]?[0-9]+)?$/.test(text)) {
          const d = ionChecked(ctx, `Cannot cast '${text}' to ${type}`, () =>
            Decimal.parse(text.replace(/^\+/, '').replace(/[eE]/, 'd')),
          );
          if (d) return new dom.Decimal(d);
        }
      }
      return fail();
    case 'STRING':
    case 'VARCHAR':
    case 'CHAR':
    case 'CHARACTER':
    case 'CHARACTER VARYING':
    case 'SYMBOL': {
      let s: string;
      if (isText(v)) s = v.stringValue() ?? '';
      else if (t === IonTypes.BOOL) s = String(v.booleanValue());
      else if (t === IonTypes.INT) s = String(v.bigIntValue());
      else if (t === IonTypes.DECIMAL) s = (v.decimalValue() ?? new Decimal(0, 0)).toString();
      else if (t === IonTypes.FLOAT) s = String(v.numberValue());
      else if (t === IonTypes.TIMESTAMP) s = v.timestampValue()?.toString() ?? '';
      else return fail();
      return type === 'SYMBOL' ? new dom.Symbol(s) : str(s);
    }
    case 'TIMESTAMP': {
      if (t === IonTypes.TIMESTAMP) return v;
      if (isText(v)) {
        const ts = ionChecked(ctx, `Cannot cast to ${type}`, () => Timestamp.parse(v.stringValue() ?? ''));
        if (ts) return new dom.Timestamp(ts);
      }
      return fail();
    }
    case 'LIST':
      if (t === IonTypes.LIST && !isBag(v)) return v;
      if (t === IonTypes.SEXP || isBag(v)) return new dom.List(v.elements());
      return fail();
    case 'SEXP':
      if (t === IonTypes.SEXP) return v;
      if (t === IonTypes.LIST) return new dom.SExpression(v.elements());
      return fail();
    case 'BAG':
      if (t === IonTypes.LIST || t === IonTypes.SEXP) return v;
      return fail();
    case 'STRUCT':
    case 'TUPLE':
      if (t === IonTypes.STRUCT) return v;
      return fail();
    case 'BLOB':
    case 'CLOB':
      if (t === IonTypes.BLOB || t === IonTypes.CLOB) {
        const bytes = v.uInt8ArrayValue() ?? new Uint8Array();
        return type === 'BLOB' ? new dom.Blob(bytes) : new dom.Clob(bytes);
      }
      return fail();
  }
  return ctx.fail(`Unknown type ${type}`);
}

/** `v IS type`: the Ion type test (NULL and MISSING handled by the caller). */
export function isOfType(v: dom.Value, type: string): boolean | undefined {
  const t = v.getType();
  if (v.isNull()) return false;
  switch (type) {
    case 'BOOL':
    case 'BOOLEAN':
      return t === IonTypes.BOOL;
    case 'INT':
    case 'INTEGER':
    case 'SMALLINT':
    case 'INT4':
    case 'INT8':
    case 'BIGINT':
      return t === IonTypes.INT;
    case 'FLOAT':
    case 'REAL':
    case 'DOUBLE PRECISION':
      return t === IonTypes.FLOAT;
    case 'DECIMAL':
    case 'NUMERIC':
      return t === IonTypes.DECIMAL;
    case 'STRING':
    case 'VARCHAR':
    case 'CHAR':
    case 'CHARACTER':
    case 'CHARACTER VARYING':
      return t === IonTypes.STRING;
    case 'SYMBOL':
      return t === IonTypes.SYMBOL;
    case 'TIMESTAMP':
      return t === IonTypes.TIMESTAMP;
    case 'BLOB':
      return t === IonTypes.BLOB;
    case 'CLOB':
      return t === IonTypes.CLOB;
    case 'LIST':
      return t === IonTypes.LIST && !isBag(v);
    case 'SEXP':
      return t === IonTypes.SEXP;
    case 'BAG':
      return isBag(v);
    case 'STRUCT':
    case 'TUPLE':
      return t === IonTypes.STRUCT;
  }
  return undefined;
}
