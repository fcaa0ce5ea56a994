/** One call to a relay floor's HTTP server (host-overhead.ts), from whichever process calls it. */
import http from 'node:http';
import { performance } from 'node:perf_hooks';
import type { LabClient } from './lab-client';

/**
 * The call's time minus the time the floor's child reported for its own work: what the hops
 * cost. Rejects when the child's handler did not answer 200: a floor whose handler failed would
 * measure an error's path, not the GET's.
 */
export function floorCall(port: number, agent: http.Agent): Promise<number> {
  return new Promise<number>((resolve, reject) => {
    const t = performance.now();
    const req = http.request({ host: '127.0.0.1', port, path: '/', agent }, (res) => {
      let body = '';
      res.on('data', (d) => {
        body += d;
      });
      res.on('end', () => {
        const ms = performance.now() - t;
        const answer = JSON.parse(body) as { ms: number; status: number };
        if (answer.status !== 200) reject(new Error(`a relay floor's handler answered ${answer.status}`));
        else resolve(ms - answer.ms);
      });
    });
    req.on('error', reject);
    req.end();
  });
}

/** The header in which the lab floor answers its handler's time (ms), beside the handler's own response. */
export const HANDLER_MS_HEADER = 'x-floor-handler-ms';

/**
 * One call to the lab floor, made as the host's calls are: the same client, the same signed GET
 * (the floor reads it and checks nothing), and the handler's own response back. Its time minus
 * the handler's time (HANDLER_MS_HEADER); rejects unless the handler answered 200.
 */
export async function labFloorCall(client: LabClient, path: string): Promise<number> {
  const res = await client.request('GET', path);
  if (res.status !== 200) throw new Error(`a relay floor's handler answered ${res.status}`);
  const handlerMs = Number(res.headers[HANDLER_MS_HEADER]);
  if (!Number.isFinite(handlerMs)) throw new Error(`a relay floor answered without ${HANDLER_MS_HEADER}`);
  return res.ms - handlerMs;
}
