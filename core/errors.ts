/**
 * How every CLI of the lab ends: a usage error prints one line and exits 2, any other error
 * prints one line (its stack with LAB_DEBUG=1) with a hint where one helps, and exits 1.
 */

/** A bad flag or missing setting: the message alone, exit 2. */
export class UsageError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'UsageError';
  }
}

const HINTS: Record<string, string> = {
  CredentialsProviderError: 'set AWS_PROFILE, run aws sso login, or pass --profile',
  ExpiredTokenException: 'your AWS session expired: aws sso login, or refresh the credentials',
  UnrecognizedClientException: 'the credentials are not valid in this account or region',
};

/** The exit code and the one line to print for an error. */
export function describeCliError(e: unknown, debug = Boolean(process.env.LAB_DEBUG)): { code: number; line: string } {
  if (e instanceof UsageError) return { code: 2, line: `error: ${e.message}` };
  const error = e instanceof Error ? e : new Error(String(e));
  if (debug) return { code: 1, line: error.stack ?? error.message };
  const hint = HINTS[error.name];
  return { code: 1, line: `error: ${error.name}: ${error.message}${hint ? ` (${hint})` : ''}` };
}

/** Runs a CLI main and sets the exit code; the main returns its own code or nothing. */
export function runCli(main: () => Promise<number | undefined>): void {
  main().then(
    (code) => {
      if (code !== undefined) process.exitCode = code;
    },
    (e: unknown) => {
      const { code, line } = describeCliError(e);
      console.error(line);
      process.exitCode = code;
    },
  );
}
