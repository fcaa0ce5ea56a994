/**
 * The lab's host alone, as a process of its own for bench/peer.ts: one FunctionPool behind
 * startApiServer with IAM authorization on, as the lab runs it, no engines and no cgroups (the
 * peer has neither). Function log lines go to a file, as the local CLI sends them, batched off
 * the request path (core/line-file.ts).
 *
 * argv: <handler dir> <port> <log file>
 */
import { LineFile } from '../core/line-file';
import { FunctionPool } from '../local/host/function-pool';
import { LOCAL_CALLER } from '../local/lab-defaults';
import { compileRoute, startApiServer } from '../local/server/api-gateway';

const [dir, port, logFile] = process.argv.slice(2);
const out = new LineFile(logFile);
const fn = {
  stackName: 'Bench',
  logicalId: 'Hello',
  name: 'bench-hello',
  assetDir: dir,
  handler: 'handler.handler',
  runtime: 'nodejs24.x',
  memorySize: 1024,
  timeoutSeconds: 6,
  environment: {},
  provisionedConcurrency: 0,
};
const pool = new FunctionPool({ fn, env: {}, maxEnvironments: 4, log: (line) => out.write(line) });
const server = await startApiServer({
  routes: [compileRoute({ method: 'GET', path: '/hello', function: fn }, pool)],
  stage: 'lab',
  host: '127.0.0.1',
  port: Number(port),
  iam: { region: LOCAL_CALLER.region, principals: [LOCAL_CALLER] },
  log: (line) => out.write(line),
});
const stop = async () => {
  await server.close();
  await pool.stop();
  // The log's exit listener writes what is still pending.
  process.exit(0);
};
process.once('SIGTERM', () => void stop());
process.once('SIGINT', () => void stop());
