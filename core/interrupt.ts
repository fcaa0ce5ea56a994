/**
 * Ctrl-C, SIGTERM and SIGHUP for every CLI that starts the lab, in one place.
 *
 * - First signal: the run's AbortSignal fires (Artillery stops, the run unwinds) and every
 *   registered stopper runs (the lab's stop: engines, environments, temp folders). Once they
 *   are done the process exits with 128 + the signal's number: 130 for SIGINT, 143 for
 *   SIGTERM, 129 for SIGHUP (the shell's convention, so a script can tell which one it was).
 * - The same Ctrl-C often arrives twice within milliseconds: the terminal signals the whole
 *   foreground group, and npm forwards what it received to its script. A repeat within
 *   DUPLICATE_WINDOW_MS is that echo and is ignored.
 * - A later signal exits at once: process.exit runs the 'exit' listeners, where the lab ends
 *   every child it recorded by process group (local/run-dir.ts) and removes its folders.
 *
 * Light on purpose (node:os only): CLIs install it before they load anything heavy.
 */
import { constants } from 'node:os';

export const INTERRUPT_SIGNALS = ['SIGINT', 'SIGTERM', 'SIGHUP'] as const;
export type InterruptSignal = (typeof INTERRUPT_SIGNALS)[number];

/** A repeat of the first signal within this long is the same Ctrl-C delivered twice. */
export const DUPLICATE_WINDOW_MS = 1_000;
/** After the stoppers are done, the CLI gets this long to finish its own unwinding. */
const UNWIND_GRACE_MS = 2_000;

/** 128 + the signal's number, as a shell reports a process the signal ended. */
export function interruptExitCode(signal: InterruptSignal): number {
  return 128 + constants.signals[signal];
}

let received: { readonly signal: InterruptSignal; readonly at: number } | undefined;
let controller: AbortController | undefined;
const stoppers = new Set<() => Promise<void>>();

/** The first signal this process received since installInterruptHandler, if any. */
export function interruptedBy(): InterruptSignal | undefined {
  return received?.signal;
}

/**
 * Registers what must run on the first signal (the lab's stop; idempotent, as it may also be
 * called by the run unwinding). Returns the unregister function. Harmless when no handler is
 * installed: tests that start a lab stop it themselves.
 */
export function stopOnInterrupt(stop: () => Promise<void>): () => void {
  stoppers.add(stop);
  return () => {
    stoppers.delete(stop);
  };
}

export interface InterruptHandlerOptions {
  /** Where the one-line notices go. @default stderr */
  readonly log?: (line: string) => void;
  /** What the first signal stops, for its notice. @default 'the lab' */
  readonly stopping?: string;
}

/**
 * Installs the handler (once per process) and returns the signal a run watches. Idempotent:
 * a second call returns the same signal.
 */
export function installInterruptHandler(opts: InterruptHandlerOptions = {}): AbortSignal {
  if (controller) return controller.signal;
  const ctl = new AbortController();
  controller = ctl;
  const log = opts.log ?? ((line: string) => process.stderr.write(`${line}\n`));
  for (const sig of INTERRUPT_SIGNALS) {
    process.on(sig, () => {
      // A closed terminal (SIGHUP) turns every later write into EIO/EPIPE: never crash on it.
      if (sig === 'SIGHUP') for (const s of [process.stdout, process.stderr]) s.on('error', () => {});
      const now = Date.now();
      if (received === undefined) {
        received = { signal: sig, at: now };
        const again = sig === 'SIGINT' ? 'Ctrl-C' : sig;
        safeLog(log, `\n${sig}: stopping ${opts.stopping ?? 'the lab'} ... (${again} again to quit at once)`);
        ctl.abort();
        void stopAll(interruptExitCode(sig));
        return;
      }
      if (now - received.at < DUPLICATE_WINDOW_MS) return;
      safeLog(log, `${sig} again: ending the lab's processes and quitting`);
      process.exit(interruptExitCode(received.signal));
    });
  }
  return ctl.signal;
}

let stopped: Promise<void> = Promise.resolve();

/** Settles once what the first signal started stopping has stopped (at once if nothing was). */
export function interruptStopped(): Promise<void> {
  return stopped;
}

function stopAll(code: number): Promise<void> {
  if (stoppers.size === 0) return stopped; // nothing of the lab's runs: the CLI unwinds by the abort
  stopped = Promise.allSettled([...stoppers].map((stop) => stop())).then(() => {
    // Normally the CLI has returned by now and runCli exits; this only ends a run that hangs.
    setTimeout(() => process.exit(code), UNWIND_GRACE_MS);
  });
  return stopped;
}

function safeLog(log: (line: string) => void, line: string): void {
  try {
    log(line);
  } catch {
    // the terminal may be gone
  }
}
