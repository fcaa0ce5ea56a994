/**
 * Runs the conformance suite's outside clients: Python scripts in the venv that
 * scripts/ensure-conformance-clients.sh makes (botocore, pyqldb, psycopg), and command-line
 * tools (curl, psql, redis-cli). A missing client fails the case with the command that installs
 * it; nothing is skipped.
 */
import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { PROJECT_ROOT } from '../../../core/paths';
import { setupTask } from '../../support/shared-engines';

export const CONFORMANCE_VENV = join(PROJECT_ROOT, '.cache', 'conformance-venv');
export const CONFORMANCE_CLIENTS = join(PROJECT_ROOT, 'test', 'conformance', 'clients');
const INSTALL = 'bash scripts/ensure-conformance-clients.sh';

export interface ClientResult {
  code: number;
  stdout: string;
  stderr: string;
}

/**
 * Runs a command with a bound; resolves with its exit code and output (never rejects on a
 * non-zero exit). Rejects when the bound kills it: a hung client has no result to assert on, and
 * a case expecting a refusal (a non-zero exit) must not pass because the client never answered.
 */
export function runClient(
  command: string,
  args: readonly string[],
  opts: { env?: NodeJS.ProcessEnv; input?: string; timeoutMs?: number } = {},
): Promise<ClientResult> {
  const timeoutMs = opts.timeoutMs ?? 60_000;
  return new Promise((resolve, reject) => {
    const child = execFile(
      command,
      [...args],
      {
        env: { ...process.env, ...opts.env },
        timeout: timeoutMs,
        maxBuffer: 16 * 1024 * 1024,
        encoding: 'utf8',
      },
      (error, stdout, stderr) => {
        if (error && (error as NodeJS.ErrnoException).code === 'ENOENT') {
          reject(new Error(`${command} is not installed; run: ${INSTALL}`));
          return;
        }
        if (error?.killed) {
          const said = stderr.trim() || stdout.trim();
          reject(new Error(`${command} did not finish within ${timeoutMs} ms${said ? `: ${said}` : ''}`));
          return;
        }
        const code = error ? (typeof error.code === 'number' ? error.code : 1) : 0;
        resolve({ code, stdout, stderr });
      },
    );
    if (opts.input !== undefined) child.stdin?.end(opts.input);
  });
}

/** The venv's python; fails with the install command when the venv is missing. */
export function venvPython(): string {
  const python = join(CONFORMANCE_VENV, 'bin', 'python');
  if (!existsSync(python)) throw new Error(`the conformance venv is missing; run: ${INSTALL}`);
  return python;
}

/**
 * Runs test/conformance/clients/<script> in the venv and parses the one JSON document it prints
 * on stdout. Scripts report what the client saw (status, error code, message) rather than assert.
 */
export async function runPythonClient<T>(
  script: string,
  args: readonly string[],
  opts: { env?: NodeJS.ProcessEnv; timeoutMs?: number } = {},
): Promise<T> {
  // The test run installs the venv in the background (test/support/global-setup.ts).
  await setupTask('conformance-clients');
  const result = await runClient(venvPython(), [join(CONFORMANCE_CLIENTS, script), ...args], opts);
  if (result.code !== 0)
    throw new Error(`${script} exited ${result.code}: ${result.stderr.trim() || result.stdout.trim()}`);
  return JSON.parse(result.stdout) as T;
}
