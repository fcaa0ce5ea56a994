/**
 * The scalar functions QLDB lists (https://docs.aws.amazon.com/qldb/latest/developerguide/ql-functions.html)
 * and CAST: string (CHAR_LENGTH, CHARACTER_LENGTH, LOWER, UPPER, SUBSTRING, TRIM), conditional
 * (COALESCE, NULLIF, EXISTS of a value; EXISTS of a subquery is an expression), date and time (DATE_ADD, DATE_DIFF, EXTRACT, TO_STRING,
 * TO_TIMESTAMP, UTCNOW), scalar (TXID, SIZE), and CAST. Unless stated otherwise a NULL or MISSING
 * argument makes the result NULL, as the functions page says.
 */
import { Decimal, dom, IonTypes, Timestamp, TimestampPrecision } from 'ion-js';
import { QldbError } from './errors';
import { exactDecimal, isNumeric } from './ion-compare';
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

export function utcTimestamp(ms: number): Timestamp {
  const d = new Date(ms);
  return new Timestamp(
    0,
    d.getUTCFullYear(),
    d.getUTCMonth() + 1,
    d.getUTCDate(),
    d.getUTCHours(),
    d.getUTCMinutes(),
    new Decimal(BigInt(d.getUTCSeconds() * 1000 + d.getUTCMilliseconds()), -3),
  );
}

/** The timestamp's fields in its own offset. */
function fields(t: Timestamp): {
  y: number;
  mo: number;
  d: number;
  h: number;
  mi: number;
  s: Decimal;
  offset: number;
} {
  const offset = t.getLocalOffset() ?? 0;
  const local = new Date(t.getDate().getTime() + offset * 60_000);
  return {
    y: local.getUTCFullYear(),
    mo: local.getUTCMonth() + 1,
    d: local.getUTCDate(),
    h: local.getUTCHours(),
    mi: local.getUTCMinutes(),
    s: t.getSecondsDecimal(),
    offset,
  };
}

function extract(part: string, t: Timestamp): dom.Value {
  const f = fields(t);
  switch (part) {
    case 'YEAR':
      return int(f.y);
    case 'MONTH':
      return int(f.mo);
    case 'DAY':
      return int(f.d);
    case 'HOUR':
      return int(f.h);
    case 'MINUTE':
      return int(f.mi);
    case 'SECOND':
      return new dom.Decimal(f.s);
    case 'TIMEZONE_HOUR':
      return int(Math.trunc(f.offset / 60));
    default:
      return int(f.offset % 60);
  }
}

/** DATE_ADD keeps the timestamp's offset and at least the precision of the part added. */
function dateAdd(part: string, n: number, t: Timestamp): Timestamp {
  const f = fields(t);
  const precision = t.getPrecision();
  let { y, mo, d, h, mi } = f;
  let seconds = f.s;
  switch (part) {
    case 'YEAR':
      y += n;
      break;
    case 'MONTH': {
      const m = mo - 1 + n;
      y += Math.floor(m / 12);
      mo = (((m % 12) + 12) % 12) + 1;
      break;
    }
    default: {
      const ms = { DAY: 86_400_000, HOUR: 3_600_000, MINUTE: 60_000, SECOND: 1000 }[part] ?? 0;
      // Whole seconds take part in the carry (59 s + 1 s is the next minute); the fraction stays.
      const whole = Math.floor(seconds.numberValue());
      const base = Date.UTC(y, mo - 1, d, h, mi, 0) + whole * 1000 + ms * n;
      const nd = new Date(base);
      if (!Number.isFinite(nd.getTime())) throw new RangeError(`${n} ${part.toLowerCase()}s is out of range`);
      [y, mo, d, h, mi] = [
        nd.getUTCFullYear(),
        nd.getUTCMonth() + 1,
        nd.getUTCDate(),
        nd.getUTCHours(),
        nd.getUTCMinutes(),
      ];
      const newWhole = nd.getUTCSeconds();
      if (newWhole !== whole) seconds = addWholeSeconds(seconds, newWhole - whole);
    }
  }
  // Clamp the day to the month's length (Jan 31 + 1 month = Feb 28/29).
  const last = new Date(Date.UTC(y, mo, 0)).getUTCDate();
  if (d > last) d = last;
  const need =
    part === 'SECOND'
      ? TimestampPrecision.SECONDS
      : part === 'MINUTE' || part === 'HOUR'
        ? TimestampPrecision.HOUR_AND_MINUTE
        : part === 'DAY'
          ? TimestampPrecision.DAY
          : part === 'MONTH'
            ? TimestampPrecision.MONTH
            : TimestampPrecision.YEAR;
  const p = Math.max(precision, need);
  return new Timestamp(
    f.offset,
    y,
    p >= TimestampPrecision.MONTH ? mo : null,
    p >= TimestampPrecision.DAY ? d : null,
    p >= TimestampPrecision.HOUR_AND_MINUTE ? h : null,
    p >= TimestampPrecision.HOUR_AND_MINUTE ? mi : null,
    p >= TimestampPrecision.SECONDS ? (seconds ?? new Decimal(0, 0)) : null,
  );
}

/** A seconds decimal moved by whole seconds, keeping its fraction and precision. */
function addWholeSeconds(seconds: Decimal, delta: number): Decimal {
  const e = seconds.getExponent();
  const c = seconds.getCoefficient();
  const signed = seconds.isNegative() ? -(c < 0n ? -c : c) : c < 0n ? -c : c;
  const moved =
    e <= 0 ? signed + BigInt(delta) * 10n ** BigInt(-e) : signed * 10n ** BigInt(e) + BigInt(delta);
  return new Decimal(moved < 0n ? -moved : moved, Math.min(e, 0), moved < 0n);
}

/**
 * Whole parts between two timestamps: "must be at least a full month apart to evaluate as a 1
 * month difference" (ql-functions.date_diff.html), so a month or year counts only once the later
 * timestamp has reached the same day and time of day in its month.
 */
function dateDiff(part: string, a: Timestamp, b: Timestamp): number {
  const ms = b.getDate().getTime() - a.getDate().getTime();
  switch (part) {
    case 'YEAR':
    case 'MONTH': {
      const fa = fields(a);
      const fb = fields(b);
      let months = (fb.y - fa.y) * 12 + (fb.mo - fa.mo);
      // The rest of each timestamp within its month, as UTC instants of the same month for comparison.
      const restA = Date.UTC(2000, 0, fa.d, fa.h, fa.mi) + fa.s.numberValue() * 1000 - fa.offset * 60_000;
      const restB = Date.UTC(2000, 0, fb.d, fb.h, fb.mi) + fb.s.numberValue() * 1000 - fb.offset * 60_000;
      if (months > 0 && restB < restA) months -= 1;
      else if (months < 0 && restB > restA) months += 1;
      return part === 'YEAR' ? Math.trunc(months / 12) : months;
    }
    case 'DAY':
      return Math.trunc(ms / 86_400_000);
    case 'HOUR':
      return Math.trunc(ms / 3_600_000);
    case 'MINUTE':
      return Math.trunc(ms / 60_000);
    default:
      return Math.trunc(ms / 1000);
  }
}

const MONTHS = [
  'January',
  'February',
  'March',
  'April',
  'May',
  'June',
  'July',
  'August',
  'September',
  'October',
  'November',
  'December',
];

const pad = (n: number, w: number) => String(Math.abs(n)).padStart(w, '0');

function offsetText(offset: number, style: string): string {
  if (offset === 0 && style.startsWith('X')) return 'Z';
  const sign = offset < 0 ? '-' : '+';
  const h = pad(Math.trunc(Math.abs(offset) / 60), 2);
  const m = pad(Math.abs(offset) % 60, 2);
  // Java's DateTimeFormatter: X +HH[mm], XX +HHmm, XXX +HH:mm, XXXX +HHmm[ss], XXXXX +HH:mm[:ss].
  if (style.length === 1) return `${sign}${h}${m === '00' ? '' : m}`;
  if (style.length === 2 || style.length === 4) return `${sign}${h}${m}`;
  return `${sign}${h}:${m}`;
}

/** TO_STRING's pattern symbols (the Java DateTimeFormatter subset the functions page lists). */
function formatTimestamp(t: Timestamp, pattern: string, ctx: FunctionContext): string {
  const f = fields(t);
  const secondsWhole = Math.trunc(f.s.numberValue());
  const fraction = f.s.numberValue() - secondsWhole;
  let out = '';
  for (let i = 0; i < pattern.length; ) {
    const c = pattern[i];
    if (c === "'") {
      const end = pattern.indexOf("'", i + 1);
      if (end < 0) ctx.fail(`TO_STRING: unterminated quote in pattern '${pattern}'`);
      out += end === i + 1 ? "'" : pattern.slice(i + 1, end);
      i = end + 1;
      continue;
    }
    if (!/[A-Za-z]/.test(c)) {
      out += c;
      i++;
      continue;
    }
    let j = i;
    while (pattern[j] === c) j++;
    const w = j - i;
    i = j;
    switch (c) {
      case 'y':
        out += w === 2 ? pad(f.y % 100, 2) : pad(f.y, w);
        break;
      case 'M':
        out += w >= 4 ? MONTHS[f.mo - 1] : w === 3 ? MONTHS[f.mo - 1].slice(0, 3) : pad(f.mo, w);
        break;
      case 'd':
        out += pad(f.d, w);
        break;
      case 'H':
        out += pad(f.h, w);
        break;
      case 'h':
        out += pad(f.h % 12 === 0 ? 12 : f.h % 12, w);
        break;
      case 'a':
        out += f.h < 12 ? 'AM' : 'PM';
        break;
      case 'm':
        out += pad(f.mi, w);
        break;
      case 's':
        out += pad(secondsWhole, w);
        break;
      case 'S':
        // Java's DateTimeFormatter (whose symbols these are) has at most 9 fraction digits.
        if (w > 9) ctx.fail(`TO_STRING: at most 9 fraction digits (S), got ${w}`);
        out += fraction.toFixed(w).slice(2, 2 + w);
        break;
      case 'n':
        out += String(Math.round(fraction * 1e9));
        break;
      case 'X':
      case 'x':
        out += offsetText(f.offset, c === 'X' ? 'X'.repeat(w) : 'x'.repeat(w));
        break;
      default:
        ctx.fail(`TO_STRING: unsupported pattern symbol '${c}'`);
    }
  }
  return out;
}

/** TO_TIMESTAMP with a pattern: the same symbols, read back. */
function parseWithPattern(s: string, pattern: string, ctx: FunctionContext): Timestamp | null {
  let y: number | undefined;
  let mo: number | undefined;
  let d: number | undefined;
  let h: number | undefined;
  let mi: number | undefined;
  let sec: Decimal | undefined;
  let offset = 0;
  let pm: boolean | undefined;
  let pos = 0;
  const digits = (max: number): number => {
    const m = new RegExp(`^[0-9]{1,${max}}`).exec(s.slice(pos));
    if (!m) ctx.fail(`TO_TIMESTAMP: '${s}' does not match pattern '${pattern}'`);
    pos += m[0].length;
    return Number(m[0]);
  };
  for (let i = 0; i < pattern.length; ) {
    const c = pattern[i];
    if (!/[A-Za-z]/.test(c)) {
      if (s[pos] !== c) ctx.fail(`TO_TIMESTAMP: '${s}' does not match pattern '${pattern}'`);
      pos++;
      i++;
      continue;
    }
    let j = i;
    while (pattern[j] === c) j++;
    const w = j - i;
    i = j;
    switch (c) {
      case 'y':
        y = digits(w === 2 ? 2 : 4);
        // "1900 is added to values greater than or equal to 70, and 2000 is added to values less
        // than 70" (ql-functions.to_timestamp.html).
        if (w === 2) y += y >= 70 ? 1900 : 2000;
        break;
      case 'M':
        if (w >= 3) {
          const idx = MONTHS.findIndex((m) =>
            s
              .slice(pos)
              .toLowerCase()
              .startsWith((w === 3 ? m.slice(0, 3) : m).toLowerCase()),
          );
          if (idx < 0) ctx.fail(`TO_TIMESTAMP: no month name at '${s.slice(pos)}'`);
          pos += w === 3 ? 3 : MONTHS[idx].length;
          mo = idx + 1;
        } else mo = digits(2);
        break;
      case 'd':
        d = digits(2);
        break;
      case 'H':
      case 'h':
        h = digits(2);
        break;
      case 'a':
        pm = s.slice(pos, pos + 2).toUpperCase() === 'PM';
        pos += 2;
        break;
      case 'm':
        mi = digits(2);
        break;
      case 's':
        sec = new Decimal(digits(2), 0);
        break;
      case 'S': {
        const frac = s.slice(pos, pos + w);
        // Digits only: anything else is not a fraction of a second (and not a number to build one of).
        if (!/^[0-9]+$/.test(frac)) ctx.fail(`TO_TIMESTAMP: '${s}' does not match pattern '${pattern}'`);
        pos += w;
        sec = new Decimal(`${sec?.numberValue() ?? 0}.${frac}`);
        break;
      }
      case 'X':
      case 'x': {
        if (s[pos] === 'Z') {
          pos++;
          offset = 0;
          break;
        }
        const m = /^([+-])([0-9]{2}):?([0-9]{2})?/.exec(s.slice(pos));
        if (!m) ctx.fail(`TO_TIMESTAMP: no offset at '${s.slice(pos)}'`);
        pos += m[0].length;
        offset = (m[1] === '-' ? -1 : 1) * (Number(m[2]) * 60 + Number(m[3] ?? 0));
        break;
      }
      default:
        ctx.fail(`TO_TIMESTAMP: unsupported pattern symbol '${c}'`);
    }
  }
  if (pos !== s.length || y === undefined) return null;
  if (pm !== undefined && h !== undefined) h = (h % 12) + (pm ? 12 : 0);
  return new Timestamp(
    offset,
    y,
    mo ?? null,
    d ?? null,
    h ?? null,
    h !== undefined ? (mi ?? 0) : null,
    sec ?? null,
  );
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
