/**
 * An append-only log file written off the request path. Lines wait in memory and go to the
 * file together, in one synchronous write, every `flushMs` (sooner past `highWaterBytes`), on
 * close, and at process exit, so a host stopped right after a burst still has every line.
 *
 * Why not fs.WriteStream: between sequential requests its queue is empty, so each line (START,
 * END and REPORT per invocation) became its own write through libuv's thread pool. Profiled
 * with --cpu-prof under the peer bench, those writes were ~0.2 ms of the host's CPU per request,
 * on the request path. One synchronous write of a batch to a regular file costs microseconds,
 * and an 'exit' listener can still make it (it runs on process.exit and after a signal handler
 * exits; an asynchronous write queued then would be lost).
 */
import { appendFileSync, closeSync, openSync, writeSync } from 'node:fs';

export interface LineFileOptions {
  /** As fs.open's flags. @default 'a' */
  readonly flags?: 'a' | 'w';
  /** Mode of a file this creates. @default 0o644 */
  readonly mode?: number;
  /** Longest a line waits in memory. @default 20 */
  readonly flushMs?: number;
  /** Pending bytes that make the next write a flush at once. @default 64 KiB */
  readonly highWaterBytes?: number;
}

export class LineFile {
  private readonly fd: number;
  private pending: string[] = [];
  private bytes = 0;
  private timer: NodeJS.Timeout | undefined;
  private closed = false;
  private readonly flushMs: number;
  private readonly highWater: number;
  private readonly onExit = () => this.close();

  constructor(
    readonly path: string,
    opts: LineFileOptions = {},
  ) {
    this.fd = openSync(path, opts.flags ?? 'a', opts.mode ?? 0o644);
    this.flushMs = opts.flushMs ?? 20;
    this.highWater = opts.highWaterBytes ?? 64 * 1024;
    process.on('exit', this.onExit);
  }

  /** Queues one line (a newline is added). After close, the line is appended at once. */
  write(line: string): void {
    if (this.closed) {
      // A late line (an environment's last output after the host stopped) is kept, not dropped.
      appendFileSync(this.path, `${line}\n`);
      return;
    }
    this.pending.push(line);
    this.bytes += line.length + 1;
    if (this.bytes >= this.highWater) this.flush();
    // Unref'd: a pending flush never keeps a process alive; the exit listener writes what is left.
    else this.timer ??= setTimeout(() => this.flush(), this.flushMs).unref();
  }

  /** Writes every pending line now. */
  flush(): void {
    clearTimeout(this.timer);
    this.timer = undefined;
    if (this.pending.length === 0) return;
    const text = `${this.pending.join('\n')}\n`;
    this.pending = [];
    this.bytes = 0;
    writeAll(this.fd, text);
  }

  /** Flushes and closes the file; a later write is appended on its own, so nothing is dropped. */
  close(): void {
    if (this.closed) return;
    this.flush();
    this.closed = true;
    process.off('exit', this.onExit);
    closeSync(this.fd);
  }
}

/** writeSync may write less than asked (a full disk raises instead): loop until all is out. */
function writeAll(fd: number, text: string): void {
  const buf = Buffer.from(text, 'utf8');
  let off = 0;
  while (off < buf.length) off += writeSync(fd, buf, off, buf.length - off);
}
