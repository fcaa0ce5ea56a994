// @ts-check
/**
 * The floor under any local host built like ours: an HTTP server process that hands each
 * request to a separate environment process over IPC, with no other work. The environment
 * waits `gapMs` (as a handler waits on its database) and reports its own time, so the
 * caller can subtract it. On a VM an idle process pays a wake-up on every hop; this
 * measures that cost apart from anything the lab does.
 *
 * argv: relay <gapMs> (prints its port over IPC) | env <gapMs>
 */
import { fork } from 'node:child_process';
import http from 'node:http';
import { performance } from 'node:perf_hooks';

const [role, gap] = process.argv.slice(2);
const gapMs = Number(gap);

if (role === 'env') {
  process.on('message', () => {
    const start = performance.now();
    setTimeout(() => process.send?.({ ms: performance.now() - start }), gapMs);
  });
} else {
  const env = fork(import.meta.filename, ['env', String(gapMs)], { execArgv: [] });
  const server = http.createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      env.once('message', (m) => {
        const body = JSON.stringify(m);
        res.writeHead(200, { 'content-type': 'application/json', 'content-length': body.length });
        res.end(body);
      });
      env.send({ type: 'invoke' });
    });
  });
  server.listen(0, '127.0.0.1', () => {
    const address = server.address();
    process.send?.(typeof address === 'object' && address ? address.port : 0);
  });
  process.on('disconnect', () => {
    env.kill();
    server.close();
  });
}
