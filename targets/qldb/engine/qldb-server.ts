/**
 * The local QLDB engine's own process: `node --import tsx qldb-server.ts '<QldbServerConfig JSON>'`.
 * A process of its own so its CPU is not the lab's event loop and a fault test can SIGKILL it.
 * Prints one JSON line once listening: {"event":"listening","port":N,"records":R}.
 */
import { once } from 'node:events';
import { Journal } from './journal';
import { createQldbEndpoint, type QldbServerConfig } from './server-config';

const config = JSON.parse(process.argv[2] ?? '{}') as QldbServerConfig;

async function main(): Promise<void> {
  let journal: Journal | undefined;
  let records: Awaited<ReturnType<typeof Journal.open>>['records'] = [];
  if (config.dataDir) {
    const opened = await Journal.open(config.dataDir, { sync: config.syncJournal ?? true });
    journal = opened.journal;
    records = opened.records;
    if (opened.droppedBytes > 0) {
      console.error(
        `qldb: dropped a torn last journal line (${opened.droppedBytes} bytes, never acknowledged)`,
      );
    }
  }
  const server = createQldbEndpoint(config, journal, records, {
    onCommitFailure: (err) => {
      // Memory may now be ahead of the journal: stop rather than acknowledge anything more.
      console.error(`qldb: a commit failed, stopping: ${err.stack ?? err.message}`);
      process.exit(1);
    },
    // Nothing changed before this error: the client got InternalFailure and the engine goes on.
    onUnexpectedError: (err) => console.error(`qldb: internal error answered: ${err.stack ?? err.message}`),
  });
  server.listen(config.port ?? 0, '127.0.0.1');
  await once(server, 'listening');
  const address = server.address();
  const port = typeof address === 'object' && address ? address.port : 0;
  process.stdout.write(`${JSON.stringify({ event: 'listening', port, records: records.length })}\n`);

  let closing = false;
  const shutdown = (): void => {
    if (closing) return;
    closing = true;
    setTimeout(() => process.exit(0), 3_000).unref();
    server.closeIdleConnections();
    server.close(() => {
      void (journal?.close() ?? Promise.resolve()).finally(() => process.exit(0));
    });
  };
  process.on('SIGTERM', shutdown);
  process.on('SIGINT', shutdown);
  // stdin is a pipe from the parent: it ends when the parent is gone, and we must not outlive it.
  process.stdin.on('end', shutdown);
  process.stdin.resume();
}

main().catch((err: Error) => {
  console.error(`qldb: ${err.message}`);
  process.exit(1);
});
