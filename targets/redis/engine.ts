/**
 * A real redis-server (Debian's package; scripts/ensure-redis.sh installs it) for the redis
 * target, run as our own child on 127.0.0.1 with a password, configured entirely on the
 * command line so no config file of the machine's service applies.
 *
 * In memory by default. With dataDir it keeps an append-only file: a write the server
 * acknowledged survives a restart, even SIGKILL of the process. Redis writes the file before it
 * replies (flushAppendOnlyFile runs before the replies are sent), so the page cache holds every
 * acknowledged write and `appendfsync no` (the lab's run data) already survives a process kill;
 * `durable` adds an fsync per write (appendfsync always) for a machine that stops (--data).
 * Not everysec: with an fsync under way it may postpone that write past the reply.
 */
import { mkdir } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import {
  type EngineCheck,
  type FindEngineContext,
  findOnPath,
  installCommand,
  isExecutable,
} from '../../local/engines/find-engine';
import { assertPortFree, freePort } from '../../local/engines/free-port';
import {
  describeExit,
  type ManagedChild,
  outputSection,
  spawnChild,
} from '../../local/engines/managed-child';

export const ENSURE_SCRIPT = 'scripts/ensure-redis.sh';
/** A redis-server to run instead of the one on PATH (a path to the binary). */
export const REDIS_SERVER_ENV = 'LAB_REDIS_SERVER';
/** No registry package ships a maintained redis-server binary: the system's package manager does. */
export const REDIS_PACKAGE = { apt: 'redis-server', brew: 'redis', dnf: 'redis' } as const;

/** The redis-server to run: LAB_REDIS_SERVER when set, else the first on PATH; undefined when none. */
export function findRedisServer(env: NodeJS.ProcessEnv = process.env): string | undefined {
  const override = env[REDIS_SERVER_ENV];
  if (override !== undefined && override !== '') return isExecutable(override) ? override : undefined;
  return findOnPath('redis-server', env.PATH);
}

/** Whether the redis target can run here, and if not, the command that adds redis-server. */
export function checkRedisServer(ctx: FindEngineContext): EngineCheck {
  const found = findRedisServer(ctx.env);
  if (found) return { found: true, source: found };
  const override = ctx.env[REDIS_SERVER_ENV];
  return {
    found: false,
    missing:
      override !== undefined && override !== ''
        ? `${REDIS_SERVER_ENV}=${override} is not an executable file`
        : 'redis-server is not on PATH',
    install: installCommand(REDIS_PACKAGE, ctx),
  };
}
const DEFAULT_START_TIMEOUT_MS = 15_000;
const BIND_ATTEMPTS = 3;
const READY_LINE = /Ready to accept connections/;

export interface StartRedisOptions {
  /** Port on 127.0.0.1; 0 or absent picks a free one. */
  readonly port?: number;
  /** Persist to this folder (created if missing) with an append-only file; absent keeps data in memory. */
  readonly dataDir?: string;
  /** With dataDir: fsync every write (appendfsync always), not only write it (appendfsync no). @default true */
  readonly durable?: boolean;
  /** requirepass: clients AUTH as user `default` with it, as on Upstash. */
  readonly password: string;
  /** The server closes connections idle this long, like the other engines. @default 60 */
  readonly idleTimeoutS?: number;
  /** Receives the server's log lines and progress lines, prefixed with [redis]. */
  readonly log?: (line: string) => void;
  /** How long to wait for "Ready to accept connections". @default 15 000 */
  readonly startTimeoutMs?: number;
  /** The server binary. @default findRedisServer(): LAB_REDIS_SERVER, else redis-server on PATH */
  readonly command?: string;
  /** More server arguments after the lab's own (another target's engine settings, e.g. cluster mode). @default none */
  readonly extraArgs?: readonly string[];
}

export interface RedisEngine {
  readonly kind: 'redis';
  /** redis://127.0.0.1:PORT, without credentials: safe to print. */
  readonly endpoint: string;
  /** redis://default:<password>@127.0.0.1:PORT, what a client connects with. */
  readonly url: string;
  readonly port: number;
  readonly pid: number;
  /** SIGTERM, then SIGKILL after a grace period; resolves once the process has exited. Idempotent. */
  stop(): Promise<void>;
}

export async function startRedis(opts: StartRedisOptions): Promise<RedisEngine> {
  validate(opts);
  const started = Date.now();
  if (opts.dataDir !== undefined) await mkdir(opts.dataDir, { recursive: true });
  const requested = opts.port ?? 0;
  const autoPort = requested === 0;
  // Only an auto-picked port can be taken between picking and binding: retry those.
  for (let attempt = 1; ; attempt++) {
    const port = autoPort ? await freePort() : requested;
    if (!autoPort) await assertPortFree(port);
    try {
      const engine = await launch(port, opts);
      opts.log?.(`[redis] ready at ${engine.endpoint} in ${Date.now() - started} ms (pid ${engine.pid})`);
      return engine;
    } catch (err) {
      if (!(err instanceof PortTakenError) || !autoPort || attempt >= BIND_ATTEMPTS) throw err;
      opts.log?.(`[redis] port ${port} was taken before redis-server bound it: trying another`);
    }
  }
}

class PortTakenError extends Error {}

function validate(opts: StartRedisOptions): void {
  const { port, password, idleTimeoutS } = opts;
  if (port !== undefined && !(Number.isInteger(port) && port >= 0 && port <= 65_535)) {
    throw new Error(`startRedis: port must be an integer from 0 to 65535 (0 = any free port), got ${port}`);
  }
  // Redis's own config parser splits on spaces and quotes: keep the password to plain characters.
  if (typeof password !== 'string' || !/^[A-Za-z0-9_-]{8,128}$/.test(password)) {
    throw new Error('startRedis: password must be 8..128 letters, digits, - or _');
  }
  if (idleTimeoutS !== undefined && !(Number.isInteger(idleTimeoutS) && idleTimeoutS >= 0)) {
    throw new Error(`startRedis: idleTimeoutS must be a whole number of seconds >= 0, got ${idleTimeoutS}`);
  }
  if (opts.dataDir !== undefined && (typeof opts.dataDir !== 'string' || opts.dataDir === '')) {
    throw new Error(`startRedis: dataDir must be a non-empty path, got ${JSON.stringify(opts.dataDir)}`);
  }
}

export function redisArgs(port: number, opts: StartRedisOptions): string[] {
  const persistence =
    opts.dataDir !== undefined
      ? [
          '--dir',
          opts.dataDir,
          '--appendonly',
          'yes',
          '--appendfsync',
          opts.durable === false ? 'no' : 'always',
        ]
      : // In memory: nothing is written, but redis-server still wants a working directory.
        ['--dir', tmpdir(), '--appendonly', 'no'];
  return [
    '--port',
    String(port),
    '--bind',
    '127.0.0.1',
    // A lab password, visible in ps to this machine's users: it guards nothing but the lab.
    '--requirepass',
    opts.password,
    '--timeout',
    String(opts.idleTimeoutS ?? 60),
    // No RDB snapshots either way: the append-only file is the durable copy.
    '--save',
    '',
    ...persistence,
    '--daemonize',
    'no',
    '--logfile',
    '',
    '--loglevel',
    'notice',
    // A client's SHUTDOWN would end the server and, in memory, everything it held: a hosted Redis
    // (Upstash) has no such command, and the lab stops its server by signal. Unknown here too.
    '--rename-command',
    'SHUTDOWN',
    '',
    ...(opts.extraArgs ?? []),
  ];
}

async function launch(port: number, opts: StartRedisOptions): Promise<RedisEngine> {
  const command = opts.command ?? findRedisServer() ?? 'redis-server';
  let child: ManagedChild;
  try {
    child = await spawnChild(command, redisArgs(port, opts), { name: 'redis', log: opts.log });
  } catch (err) {
    throw new Error(
      `${(err as Error).message}: redis-server is needed for the redis target; run bash ${ENSURE_SCRIPT}`,
    );
  }
  try {
    await waitUntilReady(child, port, opts.startTimeoutMs ?? DEFAULT_START_TIMEOUT_MS);
  } catch (err) {
    await child.stop();
    throw err;
  }
  const endpoint = `redis://127.0.0.1:${port}`;
  return {
    kind: 'redis',
    endpoint,
    url: `redis://default:${opts.password}@127.0.0.1:${port}`,
    port,
    pid: child.pid,
    stop: () => child.stop(),
  };
}

function waitUntilReady(child: ManagedChild, port: number, timeoutMs: number): Promise<void> {
  return new Promise<void>((resolve, reject) => {
    const timer = setTimeout(() => {
      reject(
        new Error(
          `redis-server did not get ready on port ${port} within ${timeoutMs} ms${outputSection(child)}`,
        ),
      );
    }, timeoutMs);
    child.onStdoutLine((line) => {
      if (!READY_LINE.test(line)) return;
      clearTimeout(timer);
      resolve();
    });
    // exited resolves after the child's output is drained, so the quoted lines are complete.
    void child.exited.then((exit) => {
      clearTimeout(timer);
      const message = `redis-server ${describeExit(exit)} before getting ready on port ${port}${outputSection(child)}`;
      reject(
        /Address already in use/.test(child.recentOutput())
          ? new PortTakenError(message)
          : new Error(message),
      );
    });
  });
}
