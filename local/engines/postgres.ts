/**
 * A real PostgreSQL server (Debian's postgresql package; scripts/ensure-postgres.sh installs
 * it) for the dsql target, run as our own child on 127.0.0.1 with its own cluster directory,
 * configured on the command line so nothing of the machine's service applies.
 *
 * - As DSQL: every transaction at repeatable read (default_transaction_isolation), so a write
 *   that conflicts with one committed after its snapshot fails with SQLSTATE 40001; one
 *   database `postgres`; a superuser named `admin`.
 * - PostgreSQL refuses to run as root: when this process is root, initdb and postgres run as
 *   the `postgres` system user (the package creates it), through setpriv, which execs, so the
 *   PID we hold is the server's own.
 * - Auth is trust for 127.0.0.1: the server is only reached through the DSQL front
 *   (dsql-front.ts), which checks the IAM token first.
 * - In a temporary directory by default (fsync off: nothing is kept anyway); with dataDir,
 *   durable: fsync and synchronous commit on, so an acknowledged write survives SIGKILL.
 * - Idle sessions end after idleTimeoutS, like the lab's other engines.
 */
import { execFile } from 'node:child_process';
import { existsSync, readdirSync } from 'node:fs';
import { mkdir, mkdtemp, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import pg from 'pg';
import { assertPortFree, freePort } from './free-port';
import { describeExit, type ManagedChild, outputSection, spawnChild } from './managed-child';

export const ENSURE_SCRIPT = 'scripts/ensure-postgres.sh';
const run = promisify(execFile);
const DEFAULT_START_TIMEOUT_MS = 30_000;
const START_ATTEMPTS = 5;
/** Each function environment holds one connection; the lab runs up to 10 per function. */
const MAX_CONNECTIONS = 300;
export const ADMIN_USER = 'admin';

export interface StartPostgresOptions {
  /** Port on 127.0.0.1; 0 or absent picks a free one. */
  readonly port?: number;
  /** Keep the cluster here (created if missing; the caller owns it); absent: a temporary directory, removed at stop. */
  readonly dataDir?: string;
  /** fsync and synchronous commit on. @default true when dataDir is given */
  readonly durable?: boolean;
  /** The server ends sessions idle this long. @default 60 */
  readonly idleTimeoutS?: number;
  readonly log?: (line: string) => void;
  /** @default 30 000 */
  readonly startTimeoutMs?: number;
  /** Folder of initdb and postgres. @default the newest /usr/lib/postgresql/<major>/bin */
  readonly binDir?: string;
}

export interface PostgresEngine {
  readonly kind: 'postgres';
  /** postgresql://admin@127.0.0.1:PORT/postgres (trust: no password) */
  readonly endpoint: string;
  readonly port: number;
  readonly pid: number;
  /** e.g. `PostgreSQL 15.14` */
  readonly version: string;
  readonly dataDir: string;
  /** Fast shutdown (SIGINT), SIGKILL after a grace; removes a temporary directory. Idempotent. */
  stop(): Promise<void>;
}

/** The newest Debian-layout PostgreSQL, or undefined. */
export function findPostgresBin(): string | undefined {
  const root = '/usr/lib/postgresql';
  if (!existsSync(root)) return undefined;
  const majors = readdirSync(root)
    .filter((v) => /^\d+$/.test(v) && existsSync(join(root, v, 'bin', 'postgres')))
    .sort((a, b) => Number(b) - Number(a));
  return majors[0] && join(root, majors[0], 'bin');
}

interface RunAs {
  readonly uid: number;
  readonly gid: number;
}

async function runAsFor(): Promise<RunAs | undefined> {
  if (process.getuid?.() !== 0) return undefined;
  try {
    const uid = Number((await run('id', ['-u', 'postgres'])).stdout.trim());
    const gid = Number((await run('id', ['-g', 'postgres'])).stdout.trim());
    return { uid, gid };
  } catch {
    throw new Error(
      `PostgreSQL does not run as root and there is no postgres user to run it as: run bash ${ENSURE_SCRIPT}`,
    );
  }
}

/** The command and arguments, through setpriv when we are root. */
function command(bin: string, args: readonly string[], as: RunAs | undefined): [string, string[]] {
  if (!as) return [bin, [...args]];
  return ['setpriv', [`--reuid=${as.uid}`, `--regid=${as.gid}`, '--init-groups', '--', bin, ...args]];
}

export function postgresArgs(
  dataDir: string,
  port: number,
  durable: boolean,
  idleTimeoutS: number,
): string[] {
  const settings: Record<string, string> = {
    listen_addresses: '127.0.0.1',
    port: String(port),
    // No Unix socket: nothing to write under /var/run, and every client comes over TCP.
    unix_socket_directories: '',
    default_transaction_isolation: 'repeatable read',
    idle_session_timeout: `${idleTimeoutS}s`,
    max_connections: String(MAX_CONNECTIONS),
    logging_collector: 'off',
    log_min_messages: 'warning',
    ...(durable ? {} : { fsync: 'off', synchronous_commit: 'off', full_page_writes: 'off' }),
  };
  return ['-D', dataDir, ...Object.entries(settings).flatMap(([k, v]) => ['-c', `${k}=${v}`])];
}

async function ensureCluster(
  bin: string,
  dataDir: string,
  durable: boolean,
  as: RunAs | undefined,
): Promise<void> {
  if (as) await chownTree(dataDir, as);
  if (existsSync(join(dataDir, 'PG_VERSION'))) return;
  const args = ['-D', dataDir, '-U', ADMIN_USER, '--auth=trust', '--encoding=UTF8', '--locale=C'];
  if (!durable) args.push('--no-sync');
  const [cmd, argv] = command(join(bin, 'initdb'), args, as);
  try {
    await run(cmd, argv, { timeout: 60_000 });
  } catch (error) {
    const e = error as { stderr?: string; message: string };
    throw new Error(`initdb failed in ${dataDir}: ${e.stderr?.trim() || e.message}`);
  }
}

async function chownTree(dir: string, as: RunAs): Promise<void> {
  if ((await stat(dir)).uid === as.uid) return;
  await run('chown', ['-R', `${as.uid}:${as.gid}`, dir]);
}

/** Makes what DSQL has and PostgreSQL lacks: the IAM role mapping table (see dsql-front.ts). */
async function bootstrap(port: number): Promise<string> {
  const client = new pg.Client({ host: '127.0.0.1', port, user: ADMIN_USER, database: 'postgres' });
  await client.connect();
  try {
    await client.query('CREATE SCHEMA IF NOT EXISTS sys');
    await client.query(
      'CREATE TABLE IF NOT EXISTS sys.iam_pg_role_mappings (arn text NOT NULL, pg_role_name text NOT NULL, PRIMARY KEY (arn, pg_role_name))',
    );
    await client.query('GRANT USAGE ON SCHEMA sys TO PUBLIC');
    await client.query('GRANT SELECT ON sys.iam_pg_role_mappings TO PUBLIC');
    const out = await client.query<{ v: string }>("SELECT current_setting('server_version') AS v");
    return `PostgreSQL ${out.rows[0]?.v ?? '?'}`;
  } finally {
    await client.end();
  }
}

export async function startPostgres(opts: StartPostgresOptions = {}): Promise<PostgresEngine> {
  const started = Date.now();
  const bin = opts.binDir ?? findPostgresBin();
  if (!bin) throw new Error(`PostgreSQL is needed for the dsql target; run bash ${ENSURE_SCRIPT}`);
  const durable = opts.durable ?? opts.dataDir !== undefined;
  const owned = opts.dataDir === undefined;
  const dataDir = opts.dataDir ?? (await mkdtemp(join(tmpdir(), 'lab-postgres-')));
  await mkdir(dataDir, { recursive: true, mode: 0o700 });
  const as = await runAsFor();
  await ensureCluster(bin, dataDir, durable, as);
  const requested = opts.port ?? 0;
  for (let attempt = 1; ; attempt++) {
    const port = requested === 0 ? await freePort() : requested;
    if (requested !== 0) await assertPortFree(port);
    try {
      const engine = await launch(bin, dataDir, port, { durable, owned }, as, opts);
      opts.log?.(
        `[postgres] ${engine.version} ready at ${engine.endpoint} in ${Date.now() - started} ms (pid ${engine.pid})`,
      );
      return engine;
    } catch (error) {
      // A port taken meanwhile, or the shared memory of a killed server still held by its backends.
      if (!(error instanceof RetryableStart) || attempt >= START_ATTEMPTS) {
        if (owned) await rm(dataDir, { recursive: true, force: true });
        throw error;
      }
      opts.log?.(`[postgres] ${error.message}: trying again`);
      await new Promise((r) => setTimeout(r, 200 * attempt));
    }
  }
}

class RetryableStart extends Error {}

async function launch(
  bin: string,
  dataDir: string,
  port: number,
  { durable, owned }: { durable: boolean; owned: boolean },
  as: RunAs | undefined,
  opts: StartPostgresOptions,
): Promise<PostgresEngine> {
  const [cmd, argv] = command(
    join(bin, 'postgres'),
    postgresArgs(dataDir, port, durable, opts.idleTimeoutS ?? 60),
    as,
  );
  let child: ManagedChild;
  try {
    child = await spawnChild(cmd, argv, { name: 'postgres', log: opts.log });
  } catch (error) {
    throw new Error(`${(error as Error).message}: run bash ${ENSURE_SCRIPT}`);
  }
  let version: string;
  try {
    version = await waitUntilReady(child, port, opts.startTimeoutMs ?? DEFAULT_START_TIMEOUT_MS);
  } catch (error) {
    await child.stop();
    throw error;
  }
  let stopping: Promise<void> | undefined;
  return {
    kind: 'postgres',
    endpoint: `postgresql://${ADMIN_USER}@127.0.0.1:${port}/postgres`,
    port,
    pid: child.pid,
    version,
    dataDir,
    stop() {
      stopping ??= (async () => {
        // SIGTERM is PostgreSQL's smart shutdown, which waits for every client to leave.
        if (!child.hasExited()) process.kill(child.pid, 'SIGINT');
        await child.stop(5_000);
        if (owned) await rm(dataDir, { recursive: true, force: true });
      })();
      return stopping;
    },
  };
}

async function waitUntilReady(child: ManagedChild, port: number, timeoutMs: number): Promise<string> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    if (child.hasExited()) {
      const exit = await child.exited;
      const output = child.recentOutput();
      const message = `postgres ${describeExit(exit)} before getting ready on port ${port}${outputSection(child)}`;
      throw /already in use|shared memory block|could not bind/i.test(output)
        ? new RetryableStart(message)
        : new Error(message);
    }
    try {
      return await bootstrap(port);
    } catch {
      if (Date.now() > deadline) {
        throw new Error(
          `postgres did not get ready on port ${port} within ${timeoutMs} ms${outputSection(child)}`,
        );
      }
      await new Promise((r) => setTimeout(r, 100));
    }
  }
}
