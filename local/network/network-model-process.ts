/** Starts network-model-child.ts as a child process we own, and waits for its URL. */
import { fileURLToPath } from 'node:url';
import { outputSection, spawnChild } from '../engines/managed-child';
import type { NetworkModelOptions } from './network-model';

const CHILD = fileURLToPath(new URL('./network-model-child.ts', import.meta.url));
const START_TIMEOUT_MS = 15_000;

export interface NetworkModelProcess {
  readonly url: string;
  readonly port: number;
  readonly pid: number;
  close(): Promise<void>;
}

export async function startNetworkModelProcess(
  options: NetworkModelOptions,
  log?: (line: string) => void,
): Promise<NetworkModelProcess> {
  const child = await spawnChild(process.execPath, ['--import', 'tsx', CHILD, JSON.stringify(options)], {
    name: 'network-model',
    log,
    cwd: fileURLToPath(new URL('../..', import.meta.url)),
  });
  try {
    const { url, port } = await new Promise<{ url: string; port: number }>((resolve, reject) => {
      const timer = setTimeout(
        () =>
          reject(
            new Error(`the network model did not start within ${START_TIMEOUT_MS} ms${outputSection(child)}`),
          ),
        START_TIMEOUT_MS,
      );
      child.exited.then((exit) => {
        clearTimeout(timer);
        reject(new Error(`the network model exited (${JSON.stringify(exit)})${outputSection(child)}`));
      });
      child.onStdoutLine((line) => {
        if (!line.startsWith('{')) return;
        const msg = JSON.parse(line) as { event?: string; url?: string; port?: number };
        if (msg.event !== 'listening' || !msg.url || !msg.port) return;
        clearTimeout(timer);
        resolve({ url: msg.url, port: msg.port });
      });
    });
    return { url, port, pid: child.pid, close: () => child.stop() };
  } catch (e) {
    await child.stop();
    throw e;
  }
}
