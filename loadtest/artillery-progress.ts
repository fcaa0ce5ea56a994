/**
 * Follows artillery's console output (not --quiet) line by line: phase start/end, the
 * 10 s "Metrics for period" blocks and the final "Summary report". Counters in period
 * blocks are per period and add up; the summary block holds totals and replaces them.
 */

export interface ArtilleryProgress {
  /** s since the load phase started (0 before it starts) */
  readonly elapsedS: number;
  readonly requests: number;
  /** non-2xx responses + error events (ECONNREFUSED, failed hooks...) */
  readonly errors: number;
  /** 'starting', then artillery's phase name, then 'summary' once the totals are in */
  readonly phase: string;
}

type Section = 'none' | 'period' | 'summary';

// `name: ...... value` as artillery's padded() prints it; long names end in '...' and no colon.
const METRIC_LINE = /^(\S.*?) \.* (-?\d+(?:\.\d+)?)(?:\/sec)?$/;
const PHASE_STARTED = /^Phase started: (.*) \(index: \d+, duration: [\d.]+s\)/;
// biome-ignore lint/suspicious/noControlCharactersInRegex: stripping ANSI colour codes is the point
const ANSI = /\u001b\[[0-9;]*m/g;

function metricName(label: string): string {
  return label.endsWith(':') ? label.slice(0, -1) : label.replace(/\.\.\.$/, '');
}

function isErrorMetric(name: string): boolean {
  return name.startsWith('errors.') || /^http\.codes\.(?!2\d\d$)\d+$/.test(name);
}

export class ArtilleryOutputParser {
  private section: Section = 'none';
  private phase = 'starting';
  private phaseStartedAt: number | undefined;
  private requests = 0;
  private errors = 0;

  constructor(private readonly now: () => number = () => performance.now()) {}

  /** Feeds one line; true when the progress it describes changed. */
  push(rawLine: string): boolean {
    const line = rawLine.replace(ANSI, '').trimEnd();
    const started = PHASE_STARTED.exec(line);
    if (started) {
      this.phase = started[1];
      this.phaseStartedAt ??= this.now();
      return true;
    }
    if (line.startsWith('Metrics for period to:')) {
      this.section = 'period';
      return false;
    }
    if (line.startsWith('Summary report @')) {
      // Switch to the totals only when they arrive, never report a moment of zeros.
      this.section = 'summary';
      return false;
    }
    if (this.section === 'none') return false;
    const m = METRIC_LINE.exec(line);
    if (!m) return false;
    const name = metricName(m[1]);
    if (name !== 'http.requests' && !isErrorMetric(name)) return false;
    if (this.section === 'summary' && this.phase !== 'summary') {
      this.phase = 'summary';
      this.requests = 0;
      this.errors = 0;
    }
    const value = Number(m[2]);
    if (name === 'http.requests') this.requests += value;
    else this.errors += value;
    return true;
  }

  snapshot(): ArtilleryProgress {
    const elapsedS = this.phaseStartedAt === undefined ? 0 : (this.now() - this.phaseStartedAt) / 1000;
    return { elapsedS, requests: this.requests, errors: this.errors, phase: this.phase };
  }
}
