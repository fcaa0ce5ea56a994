import { createServer } from 'node:net';

/** A port free on 127.0.0.1 right now: listen on 0, read it, close. Another process may take it before we do. */
export async function freePort(): Promise<number> {
  return listenThenClose(0);
}

/** Fails with a clear message if something already listens on 127.0.0.1:port. */
export async function assertPortFree(port: number): Promise<void> {
  try {
    await listenThenClose(port);
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    if (code === 'EADDRINUSE') throw new Error(`port ${port} on 127.0.0.1 is already in use`);
    throw err;
  }
}

function listenThenClose(port: number): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.unref();
    server.once('error', reject);
    server.listen({ port, host: '127.0.0.1', exclusive: true }, () => {
      const address = server.address();
      if (address === null || typeof address === 'string') {
        server.close();
        reject(new Error('could not read the bound port'));
        return;
      }
      server.close(() => resolve(address.port));
    });
  });
}
