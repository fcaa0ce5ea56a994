/**
 * Parses Lambda platform lines as CloudWatch shows or exports them: REPORT lines with or
 * without Init Duration, with or without a leading timestamp or log-stream prefix, tabs
 * or spaces between fields, mixed with any other output. A line that starts a REPORT but
 * cannot be read is counted as malformed, never thrown.
 */

export interface ReportRecord {
  readonly requestId: string;
  readonly durationMs: number;
  readonly billedDurationMs: number;
  readonly memorySizeMb: number;
  readonly maxMemoryUsedMb: number;
  readonly initDurationMs?: number;
  readonly status?: string;
  readonly errorType?: string;
  /** Log stream or function the line came from, when the export says. */
  readonly source?: string;
  readonly timestamp?: string;
}

export interface InitRecord {
  readonly initDurationMs: number;
  readonly status: string;
  readonly source?: string;
}

export interface ParsedLog {
  readonly reports: ReportRecord[];
  /** INIT_REPORT lines: provisioned-concurrency inits and failed inits. */
  readonly inits: InitRecord[];
  readonly malformed: { readonly line: number; readonly text: string; readonly reason: string }[];
  readonly otherLines: number;
}

const ISO_TS = /^(\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(?:\.\d+)?Z)\s+/;
const FIELD =
  /(Duration|Billed Duration|Memory Size|Max Memory Used|Init Duration|Status|Error Type):\s*([^\t]+?)\s*(?:\t|$|(?=\s+(?:Duration|Billed Duration|Memory Size|Max Memory Used|Init Duration|Status|Error Type):))/g;

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

export function parseLambdaLog(text: string): ParsedLog {
  const reports: ReportRecord[] = [];
  const inits: InitRecord[] = [];
  const malformed: ParsedLog['malformed'] = [];
  let otherLines = 0;
  const lines = text.split('\n');
  lines.forEach((raw, i) => {
    if (raw.trim() === '') return;
    const { body, source, timestamp } = strip(raw);
    if (body.startsWith('INIT_REPORT ')) {
      const d = /Init Duration:\s*(\d+(?:\.\d+)?)\s*ms/.exec(body);
      const s = /Status:\s*(\w+)/.exec(body);
      if (!d) malformed.push({ line: i + 1, text: raw, reason: 'INIT_REPORT without Init Duration' });
      else inits.push({ initDurationMs: Number(d[1]), status: s?.[1] ?? 'success', source });
      return;
    }
    if (!body.startsWith('REPORT ')) {
      otherLines += 1;
      return;
    }
    const id = /^REPORT RequestId:\s*([0-9a-fA-F-]{8,})/.exec(body);
    if (!id) {
      malformed.push({ line: i + 1, text: raw, reason: 'no RequestId' });
      return;
    }
    const fields = new Map<string, string>();
    for (const m of body.slice(id[0].length).matchAll(FIELD)) fields.set(m[1], m[2]);
    const duration = unit(fields.get('Duration') ?? '', 'ms');
    const billed = unit(fields.get('Billed Duration') ?? '', 'ms');
    const memory = unit(fields.get('Memory Size') ?? '', 'MB');
    const used = unit(fields.get('Max Memory Used') ?? '', 'MB');
    if (duration === undefined || billed === undefined || memory === undefined || used === undefined) {
      const missing = ['Duration', 'Billed Duration', 'Memory Size', 'Max Memory Used'].filter(
        (_f, k) => [duration, billed, memory, used][k] === undefined,
      );
      malformed.push({ line: i + 1, text: raw, reason: `missing or unreadable ${missing.join(', ')}` });
      return;
    }
    const init = fields.has('Init Duration') ? unit(fields.get('Init Duration') ?? '', 'ms') : undefined;
    if (fields.has('Init Duration') && init === undefined) {
      malformed.push({ line: i + 1, text: raw, reason: 'unreadable Init Duration' });
      return;
    }
    reports.push({
      requestId: id[1],
      durationMs: duration,
      billedDurationMs: billed,
      memorySizeMb: memory,
      maxMemoryUsedMb: used,
      ...(init !== undefined ? { initDurationMs: init } : {}),
      ...(fields.has('Status') ? { status: fields.get('Status') } : {}),
      ...(fields.has('Error Type') ? { errorType: fields.get('Error Type') } : {}),
      ...(source ? { source } : {}),
      ...(timestamp ? { timestamp } : {}),
    });
  });
  return { reports, inits, malformed, otherLines };
}
