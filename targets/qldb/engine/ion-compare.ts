/**
 * Equality as PartiQL defines it over Ion values, for WHERE f = v, and the index key that agrees
 * with it.
 *
 * - Numbers compare by value across int, decimal and float: `7 = 7.0 = 7e0` (PartiQL compares
 *   numeric types after coercion; Ion's own equality would keep them apart). Int and decimal
 *   compare exactly; a float compares as a binary double, the decimal or int converted to one.
 * - A null on either side (`NULL`, a typed null, a missing field) is never equal: the comparison is
 *   NULL or MISSING, which WHERE treats as false.
 * - Text compares string with symbol by its characters; lists, s-expressions and structs compare
 *   element by element with the same rules (a null inside a container equals a null); timestamps
 *   compare as instants; annotations are ignored.
 * PartiQL specification (equality and comparisons): https://partiql.org/assets/PartiQL-Specification.pdf
 */
import { Decimal, type dom, dumpText, IonTypes } from 'ion-js';

const NUMERIC = new Set<string>([IonTypes.INT.name, IonTypes.DECIMAL.name, IonTypes.FLOAT.name]);
const TEXT = new Set<string>([IonTypes.STRING.name, IonTypes.SYMBOL.name]);

export function isNumeric(v: dom.Value): boolean {
  return NUMERIC.has(v.getType().name);
}

export function exactDecimal(v: dom.Value): Decimal {
  if (v.getType() === IonTypes.INT) {
    // The bigint constructor takes the sign apart from the coefficient.
    const n = v.bigIntValue() ?? 0n;
    return new Decimal(n < 0n ? -n : n, 0, n < 0n);
  }
  return v.decimalValue() ?? new Decimal(0, 0);
}

function numbersEqual(a: dom.Value, b: dom.Value): boolean {
  const ta = a.getType();
  const tb = b.getType();
  // Two ints compare as bigints, without building a Decimal for each side.
  if (ta === IonTypes.INT && tb === IonTypes.INT) return a.bigIntValue() === b.bigIntValue();
  if (ta === IonTypes.FLOAT || tb === IonTypes.FLOAT) {
    return a.numberValue() === b.numberValue();
  }
  return exactDecimal(a).compareTo(exactDecimal(b)) === 0;
}

export function sameValue(a: dom.Value, b: dom.Value, nullsEqual: boolean): boolean {
  if (a.isNull() || b.isNull()) return nullsEqual && a.isNull() && b.isNull();
  if (isNumeric(a) || isNumeric(b)) return isNumeric(a) && isNumeric(b) && numbersEqual(a, b);
  const ta = a.getType();
  const tb = b.getType();
  if (TEXT.has(ta.name) || TEXT.has(tb.name)) {
    return TEXT.has(ta.name) && TEXT.has(tb.name) && a.stringValue() === b.stringValue();
  }
  if (ta !== tb) return false;
  if (ta === IonTypes.LIST || ta === IonTypes.SEXP) {
    const ea = a.elements();
    const eb = b.elements();
    return ea.length === eb.length && ea.every((x, i) => sameValue(x, eb[i], true));
  }
  if (ta === IonTypes.STRUCT) {
    const fa = a.fields();
    const fb = new Map(b.fields());
    return (
      fa.length === fb.size &&
      fa.every(([name, x]) => {
        const y = fb.get(name);
        return y !== undefined && sameValue(x, y, true);
      })
    );
  }
  return a.ionEquals(b, { ignoreAnnotations: true, ignoreTimestampPrecision: true });
}

/** `a = b` in a WHERE clause: true only when PartiQL's equality is true (not NULL or MISSING). */
export function partiqlEquals(a: dom.Value | null | undefined, b: dom.Value | null | undefined): boolean {
  if (!a || !b) return false;
  return sameValue(a, b, false);
}

/**
 * The key an index files a value under: equal numbers share one key whatever their Ion type (the
 * normalized decimal, `7`, `7.0` and `7e0` all file as 7), text files by its characters, anything
 * else by its Ion text. Undefined for a null, which no equality finds. A float that is not exactly
 * a short decimal files under its shortest round-trip text; the WHERE check after the lookup still
 * decides what matches.
 */
export function indexKey(v: dom.Value | null | undefined): string | undefined {
  if (!v || v.isNull()) return undefined;
  if (isNumeric(v)) {
    if (v.getType() === IonTypes.FLOAT) {
      const n = v.numberValue() ?? Number.NaN;
      if (!Number.isFinite(n)) return `f:${n}`;
      // Ion decimal text writes the exponent with d: 1e+21 is 1d21.
      return `n:${normalized(new Decimal(String(n).replace(/e\+?/, 'd')))}`;
    }
    return `n:${normalized(exactDecimal(v))}`;
  }
  if (TEXT.has(v.getType().name)) return `s:${v.stringValue()}`;
  return `v:${dumpText(v)}`;
}

/** coefficient and exponent with trailing zeros moved into the exponent; zero is 0e0. */
function normalized(d: Decimal): string {
  const coefficient = d.getCoefficient();
  if (coefficient === 0n) return '0e0';
  // On the digits' text: one pass, where dividing a long coefficient by 10 per zero is quadratic.
  const digits = (coefficient < 0n ? -coefficient : coefficient).toString();
  let end = digits.length;
  while (digits.charCodeAt(end - 1) === 48) end -= 1;
  const significant = digits.slice(0, end);
  const exponent = d.getExponent() + (digits.length - end);
  return `${d.isNegative() ? '-' : ''}${significant}e${exponent}`;
}
