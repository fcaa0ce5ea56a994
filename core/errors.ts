/**
 * How every CLI of the lab ends, in one place: a usage error prints its message and exits
 * 2; an interrupted run exits 130 (128 + the signal's number: core/interrupt.ts); any other
 * error prints one line (its stack with LAB_DEBUG=1), with a hint where one helps, and exits 1.
 */
import { interruptExitCode, interruptedBy, interruptStopped } from './interrupt';

/** A bad flag, option or input file: the message alone, exit 2. Nothing was changed. */
export class UsageError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'UsageError';
  }
}

/** A failure whose message is written for the user: printed without its class name. */
export class LabError extends Error {
  constructor(message: string, name = 'LabError') {
    super(message);
    this.name = name;
  }
}

/** The user stopped the run (Ctrl-C): exit 130, as a shell reports SIGINT. */
export class InterruptedError extends LabError {
  constructor(message: string) {
    super(message, 'InterruptedError');
  }
}

export interface CliErrorContext {
  /** Prefix of the printed line, e.g. `tune`; `error` when absent. */
  readonly program?: string;
  /** The AWS profile the command used, for the credentials hint. */
  readonly profile?: string;
  /** Print the stack. @default LAB_DEBUG is set */
  readonly debug?: boolean;
}

function hintFor(error: Error, profile: string | undefined): string | undefined {
  const text = `${error.name} ${error.message}`;
  if (error.name === 'CredentialsProviderError' || /could not load credentials/i.test(text)) {
    const p = profile ?? process.env.AWS_PROFILE ?? 'default';
    return `no usable AWS credentials for profile ${p}: aws sso login --profile ${p}, or aws configure`;
  }
  if (/ExpiredToken|security token included in the request is expired/i.test(text)) {
    return 'credentials expired: log in again (aws sso login)';
  }
  if (/UnrecognizedClient|security token included in the request is invalid/i.test(text)) {
    return 'the credentials are not valid in this account or region';
  }
  return undefined;
}

/** The exit code and the one line to print for an error. */
export function describeCliError(e: unknown, ctx: CliErrorContext = {}): { code: number; line: string } {
  const program = ctx.program ?? 'error';
  if (e instanceof UsageError) return { code: 2, line: `${program}: ${e.message}` };
  // node:util parseArgs refuses unknown or malformed options with these codes.
  const code = (e as { code?: unknown } | null)?.code;
  if (typeof code === 'string' && code.startsWith('ERR_PARSE_ARGS_')) {
    return { code: 2, line: `${program}: ${(e as Error).message} (see --help)` };
  }
  const error = e instanceof Error ? e : new Error(String(e));
  const exit = error instanceof InterruptedError ? 130 : 1;
  if (ctx.debug ?? Boolean(process.env.LAB_DEBUG)) return { code: exit, line: error.stack ?? error.message };
  const hint = hintFor(error, ctx.profile);
  const what = error instanceof LabError ? error.message : `${error.name}: ${error.message}`;
  return { code: exit, line: `${program}: ${what}${hint ? ` (${hint})` : ''}` };
}

/**
 * Runs a CLI main and sets the exit code; the main returns its own code or nothing. After a
 * signal (core/interrupt.ts) the code is the signal's and the process exits as soon as the main
 * has unwound, whatever handles are left: the run is over.
 */
export function runCli(main: () => Promise<number | undefined>, ctx: CliErrorContext = {}): void {
  const finish = (code: number): void => {
    const signal = interruptedBy();
    if (signal === undefined) {
      process.exitCode = code;
      return;
    }
    // The lab's stop may still run (the signal started it): exit once it is done.
    void interruptStopped().then(() => process.exit(interruptExitCode(signal)));
  };
  main().then(
    (code) => {
      if (code !== undefined) process.exitCode = code;
      if (interruptedBy() !== undefined) finish(code ?? 0);
    },
    (e: unknown) => {
      const { code, line } = describeCliError(e, ctx);
      // After a signal, an error is what stopping the lab under the run caused (an aborted
      // start, a refused request): the notice said why the run ends. LAB_DEBUG shows it.
      if (interruptedBy() === undefined || (ctx.debug ?? Boolean(process.env.LAB_DEBUG))) console.error(line);
      finish(code);
    },
  );
}
