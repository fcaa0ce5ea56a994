// @ts-check
/**
 * The relay floor as a host of its own, for bench/peer.ts: an HTTP server that hands each
 * request to one child process over Node's IPC and answers with what the child sends back, the
 * same hops as the lab's host (client -> server -> environment process -> server -> client) and
 * none of its work (no SigV4, no event, no pool, no log). What the lab's host takes over this
 * is what its own work costs.
 *
 * argv: <port> <node for the child>   (the child: argv <port> <node> child)
 */
import { fork } from 'node:child_process';
import http from 'node:http';

const [port, node, role] = process.argv.slice(2);
const BODY = '{"message":"hello"}';

if (role === 'child') {
  process.on('message', () => process.send?.({ statusCode: 200, body: BODY }));
} else {
  const child = fork(new URL(import.meta.url).pathname, [port, node, 'child'], {
    execPath: node,
    execArgv: [],
  });
  /** @type {http.ServerResponse[]} */
  const waiting = [];
  child.on('message', (/** @type {{ statusCode: number, body: string }} */ m) => {
    const res = waiting.shift();
    res?.writeHead(m.statusCode, { 'content-type': 'application/json', 'content-length': m.body.length });
    res?.end(m.body);
  });
  const server = http.createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      waiting.push(res);
      child.send({ type: 'invoke' });
    });
  });
  server.listen(Number(port), '127.0.0.1');
  const stop = () => {
    child.kill();
    server.close();
    server.closeAllConnections();
    process.exit(0);
  };
  process.once('SIGTERM', stop);
  process.once('SIGINT', stop);
}
