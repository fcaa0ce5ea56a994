/**
 * Runs the network model in its own process, so its TLS and delay timers do not share an
 * event loop (or a core) with the API host. argv[2]: NetworkModelOptions as JSON.
 * Prints one JSON line once listening: {"event":"listening","url":...,"port":N}.
 * Answers each stdin line {"id":N,"mark":bool} with {"event":"connections","id":N,...window}:
 * the connections since the last mark, then a new window when mark is true.
 */
import { createInterface } from 'node:readline';
import { type NetworkModelOptions, startNetworkModel } from './network-model';

const options = JSON.parse(process.argv[2] ?? '{}') as NetworkModelOptions;
const model = await startNetworkModel(options);
process.stdout.write(`${JSON.stringify({ event: 'listening', url: model.url, port: model.port })}\n`);

const shutdown = () => {
  model.close().then(() => process.exit(0));
};
process.once('SIGTERM', shutdown);
process.once('SIGINT', shutdown);
// The parent holds our stdin open; its end means the parent is gone.
process.stdin.on('end', shutdown);
createInterface({ input: process.stdin }).on('line', (line) => {
  let ask: { id?: unknown; mark?: unknown };
  try {
    ask = JSON.parse(line);
  } catch {
    return;
  }
  if (typeof ask.id !== 'number') return;
  const window = model.connections();
  if (ask.mark === true) model.markConnections();
  process.stdout.write(`${JSON.stringify({ event: 'connections', id: ask.id, ...window })}\n`);
});
