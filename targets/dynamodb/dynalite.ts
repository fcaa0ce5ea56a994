import { mkdir } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import {
  describeExit,
  type ManagedChild,
  outputSection,
  spawnChild,
} from '../../local/engines/managed-child';
import type { Engine, StartEngineOptions } from './engine-types';

const SERVER_SCRIPT = fileURLToPath(new URL('./dynalite-server.mjs', import.meta.url));
const DEFAULT_START_TIMEOUT_MS = 15_000;

export async function startDynalite(opts: StartEngineOptions): Promise<Engine> {
  const started = Date.now();
  if (opts.dataDir !== undefined) await mkdir(opts.dataDir, { recursive: true });
  const config = { port: opts.port ?? 0, path: opts.dataDir, idleTimeoutS: opts.idleTimeoutS };
  const child = await spawnChild(process.execPath, [SERVER_SCRIPT, JSON.stringify(config)], {
    name: 'dynalite',
    log: opts.log,
  });

  const timeoutMs = opts.startTimeoutMs ?? DEFAULT_START_TIMEOUT_MS;
  let port: number;
  try {
    port = await waitForListening(child, timeoutMs);
  } catch (err) {
    await child.stop();
    throw err;
  }
  const endpoint = `http://127.0.0.1:${port}`;
  opts.log?.(`[dynalite] ready at ${endpoint} in ${Date.now() - started} ms (pid ${child.pid})`);
  return { kind: 'dynalite', endpoint, port, pid: child.pid, stop: () => child.stop() };
}

function waitForListening(child: ManagedChild, timeoutMs: number): Promise<number> {
  return new Promise<number>((resolve, reject) => {
    const timer = setTimeout(() => {
      reject(new Error(`dynalite did not report its port within ${timeoutMs} ms${outputSection(child)}`));
    }, timeoutMs);
    child.onStdoutLine((line) => {
      const port = parseListeningLine(line);
      if (port === undefined) return;
      clearTimeout(timer);
      resolve(port);
    });
    // exited resolves after the child's stdio closed, so the quoted stderr is complete.
    void child.exited.then((exit) => {
      clearTimeout(timer);
      reject(new Error(`dynalite ${describeExit(exit)} before listening${outputSection(child)}`));
    });
  });
}

function parseListeningLine(line: string): number | undefined {
  if (!line.startsWith('{')) return undefined;
  try {
    const msg: unknown = JSON.parse(line);
    if (typeof msg !== 'object' || msg === null) return undefined;
    const { event, port } = msg as { event?: unknown; port?: unknown };
    return event === 'listening' && typeof port === 'number' ? port : undefined;
  } catch {
    return undefined;
  }
}
