import { describe, expect, it } from 'vitest';
import { FrontendMessageFramer } from '../../lambda/shared/pg-message-counter';

/** An untyped message: int32 length, int32 code, body. */
function untyped(code: number, body = Buffer.alloc(0)): Buffer {
  const b = Buffer.alloc(8);
  b.writeInt32BE(8 + body.length, 0);
  b.writeInt32BE(code, 4);
  return Buffer.concat([b, body]);
}

/** A typed message: type byte, int32 length, body. */
function typed(type: string, body = Buffer.alloc(0)): Buffer {
  const b = Buffer.alloc(5);
  b.write(type, 0, 'latin1');
  b.writeInt32BE(4 + body.length, 1);
  return Buffer.concat([b, body]);
}

describe('FrontendMessageFramer', () => {
  // https://www.postgresql.org/docs/current/protocol-flow.html: the extended query protocol
  // answers at Sync; SSLRequest, StartupMessage and PasswordMessage each wait for the server.
  const connectAndQuery = Buffer.concat([
    untyped(80877103), // SSLRequest
    untyped(196608, Buffer.from('user\0admin\0\0')), // StartupMessage, protocol 3.0
    typed('p', Buffer.from('token\0')),
    typed('P', Buffer.from('\0SELECT 1\0\0\0')),
    typed('B', Buffer.alloc(8)),
    typed('D', Buffer.from('P\0')),
    typed('E', Buffer.alloc(5)),
    typed('S'),
    typed('X'),
  ]);

  it('counts messages, and a round trip for each flight the client waits after', () => {
    const f = new FrontendMessageFramer();
    f.push(connectAndQuery);
    expect(f.messages).toBe(9);
    expect(f.roundTrips).toBe(4);
  });

  it('counts the same when the bytes arrive one at a time', () => {
    const f = new FrontendMessageFramer();
    for (const byte of connectAndQuery) f.push(Uint8Array.of(byte));
    expect(f.messages).toBe(9);
    expect(f.roundTrips).toBe(4);
  });

  it('counts a simple Query as one round trip and a CancelRequest as none', () => {
    const f = new FrontendMessageFramer();
    f.push(untyped(80877102, Buffer.alloc(8)));
    expect(f.roundTrips).toBe(0);
    const g = new FrontendMessageFramer();
    g.push(Buffer.concat([untyped(196608, Buffer.from('\0')), typed('Q', Buffer.from('SELECT 1\0'))]));
    expect([g.messages, g.roundTrips]).toEqual([2, 2]);
  });
});
