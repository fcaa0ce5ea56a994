/**
 * LIKE without backtracking. A pattern is split at its `%` wildcards into segments of literal
 * characters and `_` (any one character); the segments are then found left to right, each at its
 * leftmost place after the previous one (the first anchored at the start, the last at the end).
 * Leftmost placement is always safe for `%`-separated segments (the standard greedy wildcard
 * match), so no choice is ever revisited: the work is at most the text's length times the
 * pattern's, where a backtracking RegExp of `%a%a%a%a%b` grows exponentially.
 * Characters are code points, as `_` matches one code point.
 */

/** One segment: a code point to match, or undefined for `_`. */
type Segment = readonly (string | undefined)[];

export interface LikePattern {
  /** Whether the pattern began and ended with `%` (then the first/last segment is not anchored). */
  readonly anchoredStart: boolean;
  readonly anchoredEnd: boolean;
  readonly segments: readonly Segment[];
}

/** Parses a LIKE pattern; throws the message for a pattern that ends with its escape character. */
export function compileLike(pattern: string, escapeChar: string | undefined): LikePattern {
  const chars = Array.from(pattern);
  const segments: (string | undefined)[][] = [[]];
  let anchoredStart = true;
  let anchoredEnd = true;
  for (let i = 0; i < chars.length; i++) {
    const c = chars[i];
    const current = segments[segments.length - 1];
    if (escapeChar !== undefined && c === escapeChar) {
      const next = chars[++i];
      if (next === undefined) throw new Error('The LIKE pattern ends with its escape character');
      current.push(next);
      anchoredEnd = true;
    } else if (c === '%') {
      if (i === 0) anchoredStart = false;
      if (current.length > 0) segments.push([]);
      anchoredEnd = false;
    } else {
      current.push(c === '_' ? undefined : c);
      anchoredEnd = true;
    }
  }
  return { anchoredStart, anchoredEnd, segments: segments.filter((s, i) => s.length > 0 || i === 0) };
}

function matchesAt(text: readonly string[], at: number, segment: Segment): boolean {
  if (at + segment.length > text.length) return false;
  for (let j = 0; j < segment.length; j++) {
    const p = segment[j];
    if (p !== undefined && text[at + j] !== p) return false;
  }
  return true;
}

/**
 * Whether `value` matches. `tick` is called once per candidate position tried, so the caller's
 * evaluation budget also bounds a long text against a long pattern.
 */
export function likeMatches(value: string, like: LikePattern, tick: () => void = () => {}): boolean {
  const text = Array.from(value);
  const segments = like.segments;
  // No `%` at all: the one segment must cover the whole text.
  if (like.anchoredStart && like.anchoredEnd && segments.length === 1) {
    return segments[0].length === text.length && matchesAt(text, 0, segments[0]);
  }
  let from = 0;
  let first = 0;
  let last = segments.length;
  if (like.anchoredStart) {
    if (!matchesAt(text, 0, segments[0])) return false;
    from = segments[0].length;
    first = 1;
  }
  let end = text.length;
  if (like.anchoredEnd && last > first) {
    const tail = segments[last - 1];
    const at = text.length - tail.length;
    if (at < from || !matchesAt(text, at, tail)) return false;
    end = at;
    last -= 1;
  }
  for (let s = first; s < last; s++) {
    const segment = segments[s];
    let found = -1;
    for (let at = from; at + segment.length <= end; at++) {
      tick();
      if (matchesAt(text, at, segment)) {
        found = at;
        break;
      }
    }
    if (found < 0) return false;
    from = found + segment.length;
  }
  return from <= end;
}
