/** The watchdog's request to the local redis-server (local/engine-watchdog.ts). */
import { Redis } from 'ioredis';
import { aborting } from '../../local/engines/health';

/** Redis's PING, after AUTH; no retry and no reconnect: one try, bounded by signal. */
export async function redisHealth(url: string, signal: AbortSignal): Promise<void> {
  const client = new Redis(url, {
    lazyConnect: true,
    maxRetriesPerRequest: 0,
    retryStrategy: () => null,
    enableOfflineQueue: false,
  });
  client.on('error', () => {});
  const abort = (): void => client.disconnect();
  signal.addEventListener('abort', abort, { once: true });
  try {
    await aborting(signal, client.connect());
    const pong = await aborting(signal, client.ping());
    if (pong !== 'PONG') throw new Error(`PING answered ${pong}`);
  } finally {
    signal.removeEventListener('abort', abort);
    client.disconnect();
  }
}
