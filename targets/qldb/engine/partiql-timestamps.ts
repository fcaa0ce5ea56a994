/**
 * PartiQL's date and time functions over Ion timestamps, as QLDB lists them: EXTRACT, DATE_ADD,
 * DATE_DIFF, TO_STRING and TO_TIMESTAMP with a pattern (the Java DateTimeFormatter subset the
 * functions page lists), and UTCNOW's timestamp. Each keeps the timestamp's own offset and
 * precision; partiql-functions.ts checks the arguments and calls them.
 */
import { Decimal, dom, Timestamp, TimestampPrecision } from 'ion-js';
import { int } from './partiql-values';

/** What a function needs of its call: QLDB's error for a bad argument at the call's position. */
export interface FailContext {
  fail(message: string): never;
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

export function extract(part: string, t: Timestamp): dom.Value {
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
export function dateAdd(part: string, n: number, t: Timestamp): Timestamp {
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
export function dateDiff(part: string, a: Timestamp, b: Timestamp): number {
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
export function formatTimestamp(t: Timestamp, pattern: string, ctx: FailContext): string {
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
export function parseWithPattern(s: string, pattern: string, ctx: FailContext): Timestamp | null {
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
