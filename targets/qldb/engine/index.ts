/**
 * The local QLDB engine: a QLDB Session endpoint (and the control plane) that the
 * unmodified amazon-qldb-driver-nodejs accepts, so the QLDB bundles run although the service was
 * shut down on 2025-07-31. It runs as a child process (`node --import tsx qldb-server.ts`) so
 * its CPU is not the lab's event loop and a fault test can kill it.
 *
 * Point both SDK clients at `endpoint`: AWS_ENDPOINT_URL_QLDB_SESSION (the driver) and
 * AWS_ENDPOINT_URL_QLDB (CreateLedger, DescribeLedger, ListLedgers, UpdateLedger, DeleteLedger)
 * take the same URL.
 */
import { mkdir } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import {
  describeExit,
  type ManagedChild,
  outputSection,
  spawnChild,
} from '../../../local/engines/managed-child';
import type { QldbServerConfig } from './server-config';

export { ionHash, statementDigest, stringHash } from './digest';
export { QldbError, type QldbErrorCode } from './errors';
export { JOURNAL_FILE } from './journal';
export { Ledger } from './ledger';
export { parseStatement } from './partiql';
export { QLDB_DEFAULTS, type QldbServiceOptions, QldbSessionService } from './session-service';

const SERVER_SCRIPT = fileURLToPath(new URL('./qldb-server.ts', import.meta.url));
const PROJECT_ROOT = fileURLToPath(new URL('../../..', import.meta.url));
const DEFAULT_START_TIMEOUT_MS = 15_000;

/** What the engine process is started with (see QldbServerConfig), plus how the lab watches it. */
export interface StartQldbEngineOptions extends QldbServerConfig {
  /** Receives the engine's output lines, prefixed with [qldb]. */
  readonly log?: (line: string) => void;
  /** @default 15 000 */
  readonly startTimeoutMs?: number;
}

export interface QldbEngine {
  readonly kind: 'qldb';
  /** http://127.0.0.1:PORT: the QLDB Session endpoint and the control plane. */
  readonly endpoint: string;
  readonly port: number;
  /** PID of the engine's own node process. */
  readonly pid: number;
  /** Committed transactions replayed from the journal at start. */
  readonly replayedCommits: number;
  /** SIGTERM, then SIGKILL after a grace period; resolves once the process has exited. Idempotent. */
  stop(): Promise<void>;
}

function validate(opts: StartQldbEngineOptions): void {
  const { port, dataDir } = opts;
  if (port !== undefined && !(Number.isInteger(port) && port >= 0 && port <= 65_535)) {
    throw new Error(
      `startQldbEngine: port must be an integer from 0 to 65535 (0 = any free port), got ${port}`,
    );
  }
  if (dataDir !== undefined && (typeof dataDir !== 'string' || dataDir === '')) {
    throw new Error(`startQldbEngine: dataDir must be a non-empty path, got ${JSON.stringify(dataDir)}`);
  }
  const idle = opts.idleTimeoutS;
  if (idle !== undefined && !(Number.isInteger(idle) && idle > 0)) {
    throw new Error(`startQldbEngine: idleTimeoutS must be a positive whole number, got ${idle}`);
  }
  for (const key of [
    'pageSize',
    'sessionIdleMs',
    'sessionLifetimeMs',
    'transactionTimeoutMs',
    'statementBudgetMs',
  ] as const) {
    const v = opts[key];
    if (v !== undefined && !(Number.isInteger(v) && v > 0)) {
      throw new Error(`startQldbEngine: ${key} must be a positive integer, got ${v}`);
    }
  }
}

export async function startQldbEngine(opts: StartQldbEngineOptions = {}): Promise<QldbEngine> {
  validate(opts);
  const started = Date.now();
  if (opts.dataDir !== undefined) await mkdir(opts.dataDir, { recursive: true });
  // The engine gets its own settings; the watcher's (log, start timeout) stay here.
  const { log: _log, startTimeoutMs: _startTimeoutMs, ...settings } = opts;
  const config: QldbServerConfig = { ...settings, port: opts.port ?? 0 };
  // cwd at the project root, so `--import tsx` resolves from its node_modules.
  const child = await spawnChild(
    process.execPath,
    ['--import', 'tsx', SERVER_SCRIPT, JSON.stringify(config)],
    {
      name: 'qldb',
      log: opts.log,
      cwd: PROJECT_ROOT,
    },
  );
  let ready: { port: number; records: number };
  try {
    ready = await waitForListening(child, opts.startTimeoutMs ?? DEFAULT_START_TIMEOUT_MS);
  } catch (err) {
    await child.stop();
    throw err;
  }
  const endpoint = `http://127.0.0.1:${ready.port}`;
  opts.log?.(
    `[qldb] ready at ${endpoint} in ${Date.now() - started} ms (pid ${child.pid}, ${ready.records} commits replayed)`,
  );
  return {
    kind: 'qldb',
    endpoint,
    port: ready.port,
    pid: child.pid,
    replayedCommits: ready.records,
    stop: () => child.stop(),
  };
}

function waitForListening(
  child: ManagedChild,
  timeoutMs: number,
): Promise<{ port: number; records: number }> {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      reject(new Error(`qldb did not report its port within ${timeoutMs} ms${outputSection(child)}`));
    }, timeoutMs);
    child.onStdoutLine((line) => {
      if (!line.startsWith('{')) return;
      try {
        const msg = JSON.parse(line) as { event?: unknown; port?: unknown; records?: unknown };
        if (msg.event !== 'listening' || typeof msg.port !== 'number') return;
        clearTimeout(timer);
        resolve({ port: msg.port, records: typeof msg.records === 'number' ? msg.records : 0 });
      } catch {
        // Not our line.
      }
    });
    void child.exited.then((exit) => {
      clearTimeout(timer);
      reject(new Error(`qldb ${describeExit(exit)} before listening${outputSection(child)}`));
    });
  });
}
