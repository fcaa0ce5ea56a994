/**
 * Parses Lambda platform lines as CloudWatch shows or exports them: REPORT lines with or
 * without Init Duration, with or without a leading timestamp or log-stream prefix, tabs
 * or spaces between fields, mixed with any other output. SnapStart lines (Restore Duration,
 * Billed Restore Duration) and X-Ray fields flattened onto the line (XRAY TraceId, SegmentId,
 * Sampled) are read too. A line that starts a REPORT but cannot be read is counted as
 * malformed, never thrown. parseLambdaLine reads one line, for callers that stream a file.
 */

export interface ReportRecord {
  readonly requestId: string;
  readonly durationMs: number;
  readonly billedDurationMs: number;
  readonly memorySizeMb: number;
  readonly maxMemoryUsedMb: number;
  readonly initDurationMs?: number;
  /** SnapStart: the snapshot restore, reported instead of Init Duration */
  readonly restoreDurationMs?: number;
  readonly billedRestoreDurationMs?: number;
  readonly status?: string;
  readonly errorType?: string;
  /** X-Ray fields, which flattened exports put on the REPORT line itself */
  readonly xray?: { readonly traceId: string; readonly segmentId?: string; readonly sampled?: boolean };
  /** Log stream or function the line came from, when the export says. */
  readonly source?: string;
  readonly timestamp?: string;
}

export interface InitRecord {
  readonly initDurationMs: number;
  readonly status: string;
  readonly source?: string;
}

/** What one input line is. */
export type ParsedLine =
  | { readonly kind: 'report'; readonly record: ReportRecord }
  | { readonly kind: 'init'; readonly record: InitRecord }
  | { readonly kind: 'malformed'; readonly reason: string }
  | { readonly kind: 'other' }
  | { readonly kind: 'blank' };

export interface ParsedLog {
  readonly reports: ReportRecord[];
  /** INIT_REPORT lines: provisioned-concurrency inits and failed inits. */
  readonly inits: InitRecord[];
  readonly malformed: { readonly line: number; readonly text: string; readonly reason: string }[];
  readonly otherLines: number;
}

const ISO_TS = /^(\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(?:\.\d+)?Z)\s+/;

/**
 * Every field name a REPORT line can carry, longest first. A name only counts at the start
 * of the text or after whitespace, and the scan takes the leftmost match, so `Restore Duration`
 * and `Billed Restore Duration` (SnapStart) are read whole and never as a second `Duration`.
 */
const FIELD_NAMES = [
  'Billed Restore Duration',
  'Restore Duration',
  'Billed Duration',
  'Max Memory Used',
  'Memory Size',
  'Init Duration',
  'Duration',
  'Status',
  'Error Type',
  'XRAY TraceId',
  'SegmentId',
  'Sampled',
] as const;
type FieldName = (typeof FIELD_NAMES)[number];
const FIELD_NAME = new RegExp(`(?<=^|\\s)(${FIELD_NAMES.join('|')}):`, 'g');

/** Field name -> raw value: a value ends at the next tab or the next known field name. */
function readFields(text: string): Map<FieldName, string> {
  const fields = new Map<FieldName, string>();
  const names = [...text.matchAll(FIELD_NAME)];
  names.forEach((m, k) => {
    const from = (m.index ?? 0) + m[0].length;
    const to = k + 1 < names.length ? (names[k + 1].index ?? text.length) : text.length;
    const value = text.slice(from, to).split('\t')[0].trim();
    // The first occurrence wins: a repeated name cannot overwrite what the line said first.
    if (!fields.has(m[1] as FieldName)) fields.set(m[1] as FieldName, value);
  });
  return fields;
}

function unit(value: string, expected: 'ms' | 'MB'): number | undefined {
  const m = /^(\d+(?:\.\d+)?)\s*(ms|MB)$/.exec(value.trim());
  return m && m[2] === expected ? Number(m[1]) : undefined;
}

/** Splits off what precedes the platform keyword: a timestamp, a `[function]` or `stream:` prefix. */
function strip(line: string): { body: string; source?: string; timestamp?: string } {
  let rest = line.replace(/\r$/, '');
  let source: string | undefined;
  let timestamp: string | undefined;
  const bracket = /^\[([^\]]+)\]\s+/.exec(rest);
  if (bracket) {
    source = bracket[1];
    rest = rest.slice(bracket[0].length);
  }
  const ts = ISO_TS.exec(rest);
  if (ts) {
    timestamp = ts[1];
    rest = rest.slice(ts[0].length);
  }
  const at = rest.search(/\b(REPORT|INIT_REPORT) /);
  if (at > 0) {
    // CloudWatch exports put the log stream (and sometimes a second timestamp) before the message.
    source = source ?? (rest.slice(0, at).trim().split(/\s+/)[0] || undefined);
    rest = rest.slice(at);
  }
  return { body: rest, source, timestamp };
}

/** Reads one line (no trailing newline); never throws. */
export function parseLambdaLine(raw: string): ParsedLine {
  if (raw.trim() === '') return { kind: 'blank' };
  const { body, source, timestamp } = strip(raw);
  if (body.startsWith('INIT_REPORT ')) {
    const d = /Init Duration:\s*(\d+(?:\.\d+)?)\s*ms/.exec(body);
    const s = /Status:\s*(\w+)/.exec(body);
    if (!d) return { kind: 'malformed', reason: 'INIT_REPORT without Init Duration' };
    return { kind: 'init', record: { initDurationMs: Number(d[1]), status: s?.[1] ?? 'success', source } };
  }
  if (!body.startsWith('REPORT ')) return { kind: 'other' };
  const id = /^REPORT RequestId:\s*([0-9a-fA-F-]{8,})/.exec(body);
  if (!id) return { kind: 'malformed', reason: 'no RequestId' };
  const fields = readFields(body.slice(id[0].length));
  const duration = unit(fields.get('Duration') ?? '', 'ms');
  const billed = unit(fields.get('Billed Duration') ?? '', 'ms');
  const memory = unit(fields.get('Memory Size') ?? '', 'MB');
  const used = unit(fields.get('Max Memory Used') ?? '', 'MB');
  if (duration === undefined || billed === undefined || memory === undefined || used === undefined) {
    const missing = ['Duration', 'Billed Duration', 'Memory Size', 'Max Memory Used'].filter(
      (_f, k) => [duration, billed, memory, used][k] === undefined,
    );
    return { kind: 'malformed', reason: `missing or unreadable ${missing.join(', ')}` };
  }
  const optionalMs = (name: FieldName): number | undefined | null =>
    fields.has(name) ? (unit(fields.get(name) ?? '', 'ms') ?? null) : undefined;
  const init = optionalMs('Init Duration');
  const restore = optionalMs('Restore Duration');
  const billedRestore = optionalMs('Billed Restore Duration');
  for (const [name, v] of [
    ['Init Duration', init],
    ['Restore Duration', restore],
    ['Billed Restore Duration', billedRestore],
  ] as const) {
    if (v === null) return { kind: 'malformed', reason: `unreadable ${name}` };
  }
  const traceId = fields.get('XRAY TraceId');
  const segmentId = fields.get('SegmentId');
  const sampled = fields.get('Sampled');
  return {
    kind: 'report',
    record: {
      requestId: id[1],
      durationMs: duration,
      billedDurationMs: billed,
      memorySizeMb: memory,
      maxMemoryUsedMb: used,
      ...(typeof init === 'number' ? { initDurationMs: init } : {}),
      ...(typeof restore === 'number' ? { restoreDurationMs: restore } : {}),
      ...(typeof billedRestore === 'number' ? { billedRestoreDurationMs: billedRestore } : {}),
      ...(fields.has('Status') ? { status: fields.get('Status') } : {}),
      ...(fields.has('Error Type') ? { errorType: fields.get('Error Type') } : {}),
      ...(traceId
        ? {
            xray: {
              traceId,
              ...(segmentId ? { segmentId } : {}),
              ...(sampled === 'true' || sampled === 'false' ? { sampled: sampled === 'true' } : {}),
            },
          }
        : {}),
      ...(source ? { source } : {}),
      ...(timestamp ? { timestamp } : {}),
    },
  };
}

export function parseLambdaLog(text: string): ParsedLog {
  const reports: ReportRecord[] = [];
  const inits: InitRecord[] = [];
  const malformed: ParsedLog['malformed'] = [];
  let otherLines = 0;
  text.split('\n').forEach((raw, i) => {
    const parsed = parseLambdaLine(raw);
    if (parsed.kind === 'report') reports.push(parsed.record);
    else if (parsed.kind === 'init') inits.push(parsed.record);
    else if (parsed.kind === 'malformed') malformed.push({ line: i + 1, text: raw, reason: parsed.reason });
    else if (parsed.kind === 'other') otherLines += 1;
  });
  return { reports, inits, malformed, otherLines };
}
