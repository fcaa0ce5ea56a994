// Runs dynalite in a process of its own, so that a fault test can kill and restart it and its CPU
// is not the caller's. Plain JS, run by plain node: no loader to start, nothing to compile.
//
// Usage: node dynalite-server.mjs '{"port":0,"path":"/optional/leveldb/dir","idleTimeoutS":60}'
// Prints one JSON line once listening: {"event":"listening","port":N}. Errors go to stderr.
import { answerUncaught, conformingDynalite } from './dynalite-conformance.mjs';

const config = JSON.parse(process.argv[2] ?? '{}');

// Tables are ACTIVE at once: the lab measures item latency, not table creation.
// With `path`, dynalite keeps its data in LevelDB in that folder; without, in memory.
// conformingDynalite: dynalite where it answers as DynamoDB does (see dynalite-conformance.mjs).
const server = conformingDynalite({
  createTableMs: 0,
  deleteTableMs: 0,
  updateTableMs: 0,
  path: config.path,
});

// DynamoDB keeps an idle connection about a minute (the provisioned-concurrency article saw
// it closed after ~60 s); Node's 5 s default would drop kept-alive connections between runs.
// idleTimeoutS makes it shorter or longer for experiments on connections that age.
// The close is silent, as DynamoDB's is: no `Keep-Alive: timeout=N` header (keepAliveTimeout 0),
// which Node's agent would obey by dropping the socket itself 1 s early (at once for N = 1), but
// a socket with no bytes either way for idleTimeoutS is destroyed (server.timeout). The lab's
// calls take milliseconds, so only an idle connection ever goes that long without a byte.
server.keepAliveTimeout = 0;
server.timeout = (config.idleTimeoutS ?? 60) * 1000;

// An error dynalite throws while serving a request answers that request with DynamoDB's 500; the
// engine and the tables it holds go on (dynalite-conformance.mjs, section 5). One from outside
// any request is logged and the engine goes on too: nothing a request did can be undone by exiting.
process.on('uncaughtException', (err) => {
  const owned = answerUncaught();
  console.error(
    `dynalite: ${owned ? 'internal error answering a request' : 'uncaught error'}: ${err?.stack ?? err}`,
  );
});

server.on('error', (err) => {
  console.error(`dynalite: ${err.message}`);
  process.exit(1);
});

server.listen(config.port ?? 0, '127.0.0.1', () => {
  process.stdout.write(`${JSON.stringify({ event: 'listening', port: server.address().port })}\n`);
});

let closing = false;
function shutdown() {
  if (closing) return;
  closing = true;
  // close() waits for pending writes and closes LevelDB; do not wait on it forever.
  setTimeout(() => process.exit(0), 3_000).unref();
  server.close(() => process.exit(0));
}
process.on('SIGTERM', shutdown);
process.on('SIGINT', shutdown);
// Our stdin is a pipe from the parent: it ends when the parent is gone, and we must not outlive it.
process.stdin.on('end', shutdown);
process.stdin.resume();
