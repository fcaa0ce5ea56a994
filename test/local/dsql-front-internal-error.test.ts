/**
 * The DSQL front runs inside the lab's process: an error it did not expect while relaying a
 * session's messages must end that session with PostgreSQL's own answer to an internal error
 * (an ErrorResponse, severity FATAL, SQLSTATE XX000 internal_error:
 * https://www.postgresql.org/docs/16/errcodes-appendix.html), never the process, and the other
 * sessions go on. Checked on the relay the front uses, with a map that throws on one message.
 */
import { once } from 'node:events';
import net from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { internalErrorEnds, relayMessages } from '../../targets/dsql/front';

const sockets: net.Socket[] = [];
const servers: net.Server[] = [];
afterEach(() => {
  for (const s of sockets.splice(0)) s.destroy();
  for (const s of servers.splice(0)) s.close();
});

/** Two connected sockets: [the outside end, the end the code under test holds]. */
async function pair(): Promise<[net.Socket, net.Socket]> {
  const server = net.createServer();
  servers.push(server);
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const accepted = once(server, 'connection') as Promise<[net.Socket]>;
  const outside = net.connect((server.address() as net.AddressInfo).port, '127.0.0.1');
  const [inside] = await accepted;
  sockets.push(outside, inside);
  return [outside, inside];
}

function message(type: string, text: string): Buffer {
  const body = Buffer.from(`${text}\0`, 'utf8');
  const head = Buffer.alloc(5);
  head.write(type, 0, 'latin1');
  head.writeInt32BE(body.length + 4, 1);
  return Buffer.concat([head, body]);
}

/** Everything `socket` receives until it ends. */
function received(socket: net.Socket): Promise<Buffer> {
  const chunks: Buffer[] = [];
  socket.on('data', (c: Buffer) => chunks.push(c));
  return new Promise((resolve) => socket.once('close', () => resolve(Buffer.concat(chunks))));
}

describe('the DSQL front when relaying throws', () => {
  it('answers the session FATAL XX000, ends it and its server connection, and relays the other sessions', async () => {
    const [client, clientSide] = await pair();
    const [backend, serverSide] = await pair();
    const [otherClient, otherClientSide] = await pair();
    const [otherBackend, otherServerSide] = await pair();
    const logged: string[] = [];
    const map = (m: Buffer): Buffer => {
      if (m.subarray(5).toString('utf8').startsWith('boom')) throw new Error('nothing expected this');
      return m;
    };
    relayMessages(
      clientSide,
      serverSide,
      map,
      internalErrorEnds(clientSide, serverSide, (l) => logged.push(l)),
    );
    relayMessages(
      otherClientSide,
      otherServerSide,
      map,
      internalErrorEnds(otherClientSide, otherServerSide, (l) => logged.push(l)),
    );

    const toClient = received(client);
    const toBackend = received(backend);
    client.write(Buffer.concat([message('Q', 'SELECT 1'), message('Q', 'boom')]));
    const answer = await toClient;
    expect(answer[0]).toBe(0x45); // 'E'
    const fields = answer.subarray(5).toString('utf8');
    expect(fields).toContain('SFATAL\0');
    expect(fields).toContain('CXX000\0');
    expect(fields).toContain('Minternal error\0');
    // The server connection ends too (its transaction, if any, rolls back), and never sees the message.
    expect((await toBackend).toString('utf8')).not.toContain('boom');
    expect(logged.join('\n')).toMatch(/internal error: Error: nothing expected this/);

    // Another session, relayed by the same code in the same process, goes on.
    const got = once(otherBackend, 'data') as Promise<[Buffer]>;
    otherClient.write(message('Q', 'SELECT 2'));
    expect((await got)[0].toString('utf8')).toContain('SELECT 2');
  });
});
