/**
 * PartiQL's operators over Ion values (ion-js dom values), so types survive evaluation: int stays int,
 * decimal keeps its exponent, float stays a double, timestamps keep precision and offset. MISSING is
 * `undefined`; NULL is any Ion null. Bags (a query's result, `<< >>`) are Ion lists marked in BAGS.
 * PartiQL specification: https://partiql.org/assets/PartiQL-Specification.pdf
 */
import { Decimal, dom, IonTypes, type Timestamp } from 'ion-js';
import { exactDecimal, isNumeric, sameValue } from './ion-compare';

export type Val = dom.Value | undefined;

export const NULL = new dom.Null();
export const TRUE = new dom.Boolean(true);
export const FALSE = new dom.Boolean(false);

const BAGS = new WeakSet<dom.Value>();

export function bag(items: readonly dom.Value[]): dom.Value {
  const b = new dom.List([...items]);
  BAGS.add(b);
  return b;
}

export function isBag(v: Val): boolean {
  return v !== undefined && BAGS.has(v);
}

export const bool = (b: boolean): dom.Value => (b ? TRUE : FALSE);

/** Whether a value is NULL or MISSING (the unknowns that propagate). */
export function unknown(v: Val): boolean {
  return v === undefined || v.isNull();
}

/** The propagated unknown of two operands: MISSING wins over NULL. */
export function unknownOf(a: Val, b: Val): Val {
  return a === undefined || b === undefined ? undefined : NULL;
}

export function isTrue(v: Val): boolean {
  return v !== undefined && v.getType() === IonTypes.BOOL && !v.isNull() && v.booleanValue() === true;
}

export function isText(v: dom.Value): boolean {
  const t = v.getType();
  return t === IonTypes.STRING || t === IonTypes.SYMBOL;
}

export function isSequence(v: dom.Value): boolean {
  const t = v.getType();
  return t === IonTypes.LIST || t === IonTypes.SEXP;
}

export function typeName(v: Val): string {
  if (v === undefined) return 'MISSING';
  if (isBag(v)) return 'BAG';
  return v.getType().name.toUpperCase();
}

export function int(n: number | bigint): dom.Value {
  return new dom.Integer(typeof n === 'number' ? BigInt(Math.trunc(n)) : n);
}

export function str(s: string): dom.Value {
  return new dom.String(s);
}

export function decimal(coefficient: bigint, exponent: number): dom.Value {
  return new dom.Decimal(
    new Decimal(coefficient < 0n ? -coefficient : coefficient, exponent, coefficient < 0n),
  );
}

/** A decimal as a signed coefficient and exponent. */
function parts(d: Decimal): [bigint, number] {
  const c = d.getCoefficient();
  const abs = c < 0n ? -c : c;
  return [d.isNegative() ? -abs : abs, d.getExponent()];
}

/**
 * Decimal arithmetic keeps 38 significant digits, rounding half to even, as PartiQL's reference
 * implementation does (partiql-lang-kotlin: MathContext(38, RoundingMode.HALF_EVEN)). Besides
 * being what QLDB's PartiQL computed, it bounds the work: `1d3000000 + 1` never builds a
 * three-million-digit coefficient.
 */
export const DECIMAL_PRECISION = 38;

function digitCount(c: bigint): number {
  return (c < 0n ? -c : c).toString().length;
}

/** Rounds a coefficient to DECIMAL_PRECISION digits, half to even, moving the exponent. */
function rounded(c: bigint, e: number): [bigint, number] {
  const digits = digitCount(c);
  if (digits <= DECIMAL_PRECISION) return [c, e];
  const drop = digits - DECIMAL_PRECISION;
  const unit = 10n ** BigInt(drop);
  const negative = c < 0n;
  const abs = negative ? -c : c;
  let q = abs / unit;
  const twice = (abs % unit) * 2n;
  if (twice > unit || (twice === unit && q % 2n === 1n)) q += 1n;
  let exponent = e + drop;
  // 99...9 rounded up to 10...0 has one digit too many: that digit is a zero.
  if (digitCount(q) > DECIMAL_PRECISION) {
    q /= 10n;
    exponent += 1;
  }
  return [negative ? -q : q, exponent];
}

/**
 * a + b to DECIMAL_PRECISION digits. When one operand lies wholly below the digits the result
 * keeps, only its sign can matter (to the rounding), so it is replaced by a unit just below them:
 * the result is the same and the exponents are never aligned across a huge gap.
 */
function addDecimals(a: [bigint, number], b: [bigint, number]): [bigint, number] {
  if (a[0] === 0n && b[0] === 0n) return [0n, Math.min(a[1], b[1])];
  // `hi` has the larger exponent.
  const [hi, lower] = a[1] >= b[1] ? [a, b] : [b, a];
  let lo = lower;
  const gap = hi[1] - lo[1];
  if (hi[0] === 0n) {
    // 0 at a large exponent adds nothing but its scale: the other operand, padded to the smaller exponent.
    return rounded(lo[0], lo[1]);
  }
  const room = DECIMAL_PRECISION + 2;
  if (gap > room + digitCount(lo[0])) {
    const sign = lo[0] < 0n ? -1n : lo[0] > 0n ? 1n : 0n;
    lo = [sign, hi[1] - room];
  }
  const e = Math.min(hi[1], lo[1]);
  const sum = hi[0] * 10n ** BigInt(hi[1] - e) + lo[0] * 10n ** BigInt(lo[1] - e);
  return rounded(sum, e);
}

/**
 * The integer quotient of a % b must fit in DECIMAL_PRECISION digits, as Java's
 * BigDecimal.remainder(divisor, MathContext) requires ("Division impossible" otherwise).
 */
function remainderDecimals(a: [bigint, number], b: [bigint, number]): [bigint, number] {
  const magnitude = (x: [bigint, number]) => digitCount(x[0]) + x[1];
  if (a[0] !== 0n && magnitude(a) - magnitude(b) > DECIMAL_PRECISION) {
    throw new RangeError(`Division impossible: the quotient has more than ${DECIMAL_PRECISION} digits`);
  }
  const e = Math.min(a[1], b[1]);
  const x = a[0] * 10n ** BigInt(a[1] - e);
  const y = b[0] * 10n ** BigInt(b[1] - e);
  return rounded(x % y, e);
}

/** Numeric comparison: int and decimal exactly, a float as a double. */
export function compareNumbers(a: dom.Value, b: dom.Value): number {
  if (a.getType() === IonTypes.FLOAT || b.getType() === IonTypes.FLOAT) {
    const x = a.numberValue() ?? 0;
    const y = b.numberValue() ?? 0;
    return x < y ? -1 : x > y ? 1 : 0;
  }
  return exactDecimal(a).compareTo(exactDecimal(b));
}

function instant(t: Timestamp): number {
  return t.getDate().getTime();
}

/** `<`, `<=`, ... over two known values of comparable types; undefined (MISSING) when not comparable. */
export function compare(a: dom.Value, b: dom.Value): number | undefined {
  if (isNumeric(a) && isNumeric(b)) return compareNumbers(a, b);
  if (isText(a) && isText(b)) {
    const x = a.stringValue() ?? '';
    const y = b.stringValue() ?? '';
    return x < y ? -1 : x > y ? 1 : 0;
  }
  const ta = a.getType();
  if (ta !== b.getType()) return undefined;
  if (ta === IonTypes.TIMESTAMP) {
    const x = a.timestampValue();
    const y = b.timestampValue();
    if (!x || !y) return undefined;
    const d = instant(x) - instant(y);
    if (d !== 0) return d < 0 ? -1 : 1;
    return x._getFractionalSeconds().compareTo(y._getFractionalSeconds());
  }
  if (ta === IonTypes.BOOL) return Number(a.booleanValue()) - Number(b.booleanValue());
  if (ta === IonTypes.BLOB || ta === IonTypes.CLOB) {
    return Buffer.compare(Buffer.from(a.uInt8ArrayValue() ?? []), Buffer.from(b.uInt8ArrayValue() ?? []));
  }
  return undefined;
}

/** PartiQL `=`: MISSING or NULL when an operand is unknown, else a boolean. */
export function equals(a: Val, b: Val): Val {
  if (unknown(a) || unknown(b)) return unknownOf(a, b);
  return bool(sameValue(a as dom.Value, b as dom.Value, true));
}

export type ArithmeticOp = '+' | '-' | '*' | '/' | '%';

/** Decimal division keeps 34 significant digits (IEEE decimal128, what Ion decimals default to). */
const DIVISION_DIGITS = 34;

/** Arithmetic with PartiQL's typing: int op int is int, with a decimal decimal, with a float float. */
export function arithmetic(op: ArithmeticOp, a: dom.Value, b: dom.Value): Val {
  if (!isNumeric(a) || !isNumeric(b)) return undefined;
  const ta = a.getType();
  const tb = b.getType();
  if (ta === IonTypes.FLOAT || tb === IonTypes.FLOAT) {
    const x = a.numberValue() ?? 0;
    const y = b.numberValue() ?? 0;
    switch (op) {
      case '+':
        return new dom.Float(x + y);
      case '-':
        return new dom.Float(x - y);
      case '*':
        return new dom.Float(x * y);
      case '/':
        return new dom.Float(x / y);
      case '%':
        return new dom.Float(x % y);
    }
  }
  if (ta === IonTypes.INT && tb === IonTypes.INT) {
    const x = a.bigIntValue() ?? 0n;
    const y = b.bigIntValue() ?? 0n;
    if ((op === '/' || op === '%') && y === 0n) throw new RangeError('Division by zero');
    switch (op) {
      case '+':
        return int(x + y);
      case '-':
        return int(x - y);
      case '*':
        return int(x * y);
      case '/':
        return int(x / y);
      case '%':
        return int(x % y);
    }
  }
  const pa = parts(exactDecimal(a));
  const pb = parts(exactDecimal(b));
  switch (op) {
    case '+':
    case '-': {
      const [c, e] = addDecimals(pa, op === '+' ? pb : [-pb[0], pb[1]]);
      return decimal(c, e);
    }
    case '*': {
      const [c, e] = rounded(pa[0] * pb[0], pa[1] + pb[1]);
      return decimal(c, e);
    }
    case '/': {
      if (pb[0] === 0n) throw new RangeError('Division by zero');
      const scale = DIVISION_DIGITS;
      const q = (pa[0] * 10n ** BigInt(scale)) / pb[0];
      return normalizeDecimal(q, pa[1] - pb[1] - scale);
    }
    case '%': {
      if (pb[0] === 0n) throw new RangeError('Division by zero');
      const [c, e] = remainderDecimals(pa, pb);
      return decimal(c, e);
    }
  }
}

/** Drops trailing zeros a division produced (not the operands' own scale). */
function normalizeDecimal(c: bigint, e: number): dom.Value {
  while (c !== 0n && c % 10n === 0n && e < 0) {
    c /= 10n;
    e += 1;
  }
  return decimal(c, e);
}

export function negate(v: dom.Value): Val {
  if (!isNumeric(v)) return undefined;
  if (v.getType() === IonTypes.FLOAT) return new dom.Float(-(v.numberValue() ?? 0));
  if (v.getType() === IonTypes.INT) return int(-(v.bigIntValue() ?? 0n));
  const [c, e] = parts(exactDecimal(v));
  return decimal(-c, e);
}

/** Elements of a collection value (list, s-expression, bag); a struct's field values. */
export function elementsOf(v: dom.Value): dom.Value[] {
  const t = v.getType();
  if (v.isNull()) return [];
  if (t === IonTypes.LIST || t === IonTypes.SEXP || t === IonTypes.STRUCT) return v.elements();
  return [v];
}
