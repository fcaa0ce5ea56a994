/**
 * The running lab as environment variables, for every program that is not the lab: the AWS
 * SDKs and CLIs read AWS_ENDPOINT_URL_<SERVICE> and AWS_CA_BUNDLE, Node reads
 * NODE_EXTRA_CA_CERTS, libpq (psql, psycopg, node-postgres) reads PG*, Redis clients take
 * REDIS_URL. `npm run local` writes them to .lab/local.env (mode 0600: the Redis password and the
 * caller's secret are in it) and removes the file when it stops; `npm run -s local -- env`
 * prints them for `eval`. Light on purpose: the `env` and `token` commands load nothing else.
 */
import { chmodSync, mkdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { PROJECT_ROOT } from '../core/paths';
import { LOCAL_CALLER } from './lab-defaults';

/** Where the lab keeps what other programs read while it runs; ignored by git. */
export const LAB_DIR = join(PROJECT_ROOT, '.lab');
export const LAB_ENV_FILE = join(LAB_DIR, 'local.env');

/** What the file says beyond the services' own lines. */
export interface LabEnvInput {
  readonly apiUrl: string;
  readonly caCertPath: string;
  /** Every target's client lines (LocalDatabase.clientEnv), merged. */
  readonly services: Record<string, string>;
}

/** Every variable of the file, in the order it is written. */
export function labEnvVars(input: LabEnvInput): Record<string, string> {
  return {
    ...input.services,
    AWS_REGION: LOCAL_CALLER.region,
    // botocore (boto3, the AWS CLI) reads this one, not AWS_REGION.
    AWS_DEFAULT_REGION: LOCAL_CALLER.region,
    // The local caller: the API accepts it (IAM authorization), the DSQL front accepts its
    // tokens, the other engines do not check signatures. Not a secret outside this machine.
    AWS_ACCESS_KEY_ID: LOCAL_CALLER.accessKeyId,
    AWS_SECRET_ACCESS_KEY: LOCAL_CALLER.secretAccessKey,
    AWS_CA_BUNDLE: input.caCertPath,
    NODE_EXTRA_CA_CERTS: input.caCertPath,
    LAB_API_URL: input.apiUrl,
  };
}

const SAFE = /^[A-Za-z0-9_./:@%+=,-]*$/;
/** A value as one shell word: bare when safe, else single-quoted. */
export const shellWord = (value: string): string =>
  SAFE.test(value) ? value : `'${value.replaceAll("'", `'\\''`)}'`;

/**
 * `export NAME=value` lines: what `source`, `eval`, python-dotenv and Node's --env-file read.
 * The first line says which lab wrote them (`local env` checks that it still runs).
 */
export function formatEnvFile(vars: Record<string, string>, pid: number): string {
  const lines = Object.entries(vars).map(([k, v]) => `export ${k}=${shellWord(v)}`);
  return `# written by npm run local (pid ${pid}); removed when it stops\n${lines.join('\n')}\n`;
}

/** Writes the file readable by the user only, whole or not at all (a reader never sees half). */
export function writeEnvFile(path: string, vars: Record<string, string>, pid = process.pid): void {
  mkdirSync(dirname(path), { recursive: true });
  const tmp = `${path}.${pid}.tmp`;
  writeFileSync(tmp, formatEnvFile(vars, pid), { mode: 0o600 });
  chmodSync(tmp, 0o600); // an existing tmp keeps its mode through writeFileSync
  renameSync(tmp, path);
}

/** Removes the file if this process wrote it (another lab may have written it since). */
export function removeEnvFile(path: string, pid = process.pid): void {
  try {
    if (writerPid(readFileSync(path, 'utf8')) === pid) rmSync(path, { force: true });
  } catch {
    // already gone
  }
}

function writerPid(text: string): number | undefined {
  const m = /^# written by npm run local \(pid (\d+)\)/.exec(text);
  return m ? Number(m[1]) : undefined;
}

function isRunning(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (e) {
    return (e as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/**
 * The file of the running lab, or an Error saying why there is none (no lab, or one that
 * was killed before it could remove its file: that file is removed).
 */
export function readEnvFile(path: string): string | Error {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch {
    return new Error(`no local lab is running (${path} does not exist); start one with: npm run local`);
  }
  const pid = writerPid(text);
  if (pid === undefined || !isRunning(pid)) {
    rmSync(path, { force: true });
    return new Error(
      `the lab that wrote ${path} (pid ${pid ?? '?'}) is gone; removed the stale file. Start one with: npm run local`,
    );
  }
  return text;
}

/** NAME=value pairs of a file written by formatEnvFile. */
export function parseEnvFile(text: string): Record<string, string> {
  const out: Record<string, string> = {};
  for (const line of text.split('\n')) {
    const m = /^export ([A-Z_][A-Z0-9_]*)=(.*)$/.exec(line);
    if (!m) continue;
    const raw = m[2] as string;
    out[m[1] as string] = raw.startsWith("'") ? raw.slice(1, -1).replaceAll(`'\\''`, "'") : raw;
  }
  return out;
}
