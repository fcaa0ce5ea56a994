/**
 * One cheap request per engine that only a working engine answers: the lab's watchdog sends
 * it with a deadline to notice an engine that runs but no longer serves (hung, stopped).
 * Each resolves once the engine answered and rejects on an error or when `signal` aborts. Those
 * that more than one target uses are here; a target's own is in its folder.
 */
import { SUPERUSER, socketClient } from './postgres';

/** An HTTP GET that must answer 2xx (an emulated control plane's list call). */
export async function httpHealth(url: string, signal: AbortSignal): Promise<void> {
  const res = await fetch(url, { signal });
  await res.arrayBuffer();
  if (!res.ok) throw new Error(`GET ${url} answered ${res.status}`);
}

/** PostgreSQL's SELECT 1 on its private socket. */
export async function postgresHealth(socketDir: string, signal: AbortSignal): Promise<void> {
  const client = socketClient(socketDir, SUPERUSER);
  client.on('error', () => {});
  const abort = (): void => {
    void client.end().catch(() => {});
  };
  signal.addEventListener('abort', abort, { once: true });
  try {
    await aborting(signal, client.connect());
    await aborting(signal, client.query('SELECT 1'));
  } finally {
    signal.removeEventListener('abort', abort);
    // Not awaited: a server that stopped answering may never finish the goodbye either.
    void client.end().catch(() => {});
  }
}

/** The promise, or the abort's reason once signal aborts (whichever comes first). */
export function aborting<T>(signal: AbortSignal, promise: Promise<T>): Promise<T> {
  if (signal.aborted) return Promise.reject(signal.reason);
  return new Promise<T>((resolve, reject) => {
    const onAbort = (): void => reject(signal.reason);
    signal.addEventListener('abort', onAbort, { once: true });
    promise.then(
      (v) => {
        signal.removeEventListener('abort', onAbort);
        resolve(v);
      },
      (e) => {
        signal.removeEventListener('abort', onAbort);
        reject(e);
      },
    );
  });
}
