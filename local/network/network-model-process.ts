/** Starts network-model-child.ts as a child process we own, and waits for its URL. */
import { fileURLToPath } from 'node:url';
import { outputSection, spawnChild } from '../engines/managed-child';
import type { ConnectionWindow, NetworkModelOptions } from './network-model';

const CHILD = fileURLToPath(new URL('./network-model-child.ts', import.meta.url));
const START_TIMEOUT_MS = 15_000;

export interface NetworkModelProcess {
  readonly url: string;
  readonly port: number;
  readonly pid: number;
  /**
   * The connections open at the database through the model since the last mark
   * (NetworkModel.connections); `mark` then starts a new window, as a load phase begins.
   */
  connections(options?: { readonly mark?: boolean }): Promise<ConnectionWindow>;
  close(): Promise<void>;
}

/** How long the model may take to answer a count: it answers from memory, at once. */
const ANSWER_TIMEOUT_MS = 5_000;

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
    let next = 0;
    const waiting = new Map<number, (w: ConnectionWindow) => void>();
    child.onStdoutLine((line) => {
      if (!line.startsWith('{"event":"connections"')) return;
      const { id, open, peakOpen, peakActive, active, opened } = JSON.parse(line) as ConnectionWindow & {
        id: number;
      };
      waiting.get(id)?.({ open, peakOpen, peakActive, active, opened });
      waiting.delete(id);
    });
    const connections = (options: { readonly mark?: boolean } = {}): Promise<ConnectionWindow> =>
      new Promise((resolve, reject) => {
        next += 1;
        const id = next;
        const timer = setTimeout(() => {
          waiting.delete(id);
          reject(new Error(`the network model did not answer within ${ANSWER_TIMEOUT_MS} ms`));
        }, ANSWER_TIMEOUT_MS);
        waiting.set(id, (w) => {
          clearTimeout(timer);
          resolve(w);
        });
        if (!child.send(JSON.stringify({ id, mark: options.mark === true }))) {
          clearTimeout(timer);
          waiting.delete(id);
          reject(new Error('the network model has exited'));
        }
      });
    return { url, port, pid: child.pid, connections, close: () => child.stop() };
  } catch (e) {
    await child.stop();
    throw e;
  }
}
