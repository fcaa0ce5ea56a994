/**
 * What makes the lab's PostgreSQL 16 answer as an Aurora PostgreSQL writer with IAM database
 * authentication: a PostgreSQL-protocol front between the network model (which has terminated
 * TLS, as rds.force_ssl requires) and the server's private Unix socket. Unlike the dsql target's
 * front (local/engines/dsql-front.ts) it rewrites no SQL: Aurora PostgreSQL is PostgreSQL.
 *
 * - Authentication: it asks for a cleartext password (what RDS asks of an rds_iam user); the
 *   master user's is its password, every other user's an RDS IAM token, checked by
 *   rds-token.ts as the dsql target checks its tokens. A refusal is the server's own words for
 *   a failed login: FATAL 28P01 `PAM authentication failed for user "<user>"` for a token,
 *   `password authentication failed for user "<user>"` for the master's password.
 * - Aurora's session defaults, where the lab's server is set up as DSQL: read committed and no
 *   lock timeout, passed as startup parameters.
 * - Auto-pause (resume-model.ts): a connection that finds the instance paused waits for the
 *   resume before its login is answered; once the server has said AuthenticationOk, the front
 *   sends one NoticeResponse `aurorapg local: resumed from auto-pause after <ms> ms` (the lab's
 *   own signal for the timing block: Aurora sends none).
 */
import { timingSafeEqual } from 'node:crypto';
import net from 'node:net';
import type { AwsCredentialIdentity } from '@smithy/types';
import {
  authenticationCleartextPassword,
  CANCEL_REQUEST_CODE,
  errorResponse,
  GSSENC_REQUEST_CODE,
  MessageReader,
  PROTOCOL_3,
  SSL_REQUEST_CODE,
  startupMessage,
  startupParameters,
  typedMessage,
} from '../../core/pg-wire';
import { endThenDestroy } from '../../local/network/delay-layer';
import { verifyRdsToken } from './rds-token';
import { ResumeModel as Model, type ResumeModel, type ResumeSettings } from './resume-model';

const MAX_HANDSHAKE_MESSAGE = 64 * 1024;
/** AuthenticationOk: 'R', length 8, code 0. */
const AUTH_OK_LENGTH = 9;

/** Aurora PostgreSQL's defaults the lab's server does not share (postgres.ts is set up as DSQL). */
export const AURORA_SESSION_DEFAULTS: Readonly<Record<string, string>> = {
  default_transaction_isolation: 'read committed',
  lock_timeout: '0',
};

export interface AuroraFrontOptions {
  readonly backendSocket: string;
  /** The endpoint name tokens must be signed for. */
  readonly expectedHost: string;
  readonly credentials: readonly AwsCredentialIdentity[];
  readonly master: { readonly user: string; readonly password: string };
  readonly resume?: ResumeSettings;
  readonly port?: number;
  readonly log?: (line: string) => void;
}

export interface AuroraFrontStats {
  readonly accepted: number;
  readonly refused: number;
  readonly resumes: number;
  readonly heldMs: number;
}

export interface AuroraFront {
  readonly port: number;
  readonly resume: ResumeModel;
  stats(): AuroraFrontStats;
  close(): Promise<void>;
}

export function noticeResponse(message: string): Buffer {
  const fields = `SNOTICE\0VNOTICE\0C00000\0M${message}\0`;
  return typedMessage('N', Buffer.concat([Buffer.from(fields, 'utf8'), Buffer.from([0])]));
}

function samePassword(a: string, b: string): boolean {
  const x = Buffer.from(a);
  const y = Buffer.from(b);
  return x.length === y.length && timingSafeEqual(x, y);
}

export async function startAuroraFront(opts: AuroraFrontOptions): Promise<AuroraFront> {
  const sockets = new Set<net.Socket>();
  const resume = new Model(opts.resume);
  let accepted = 0;
  let refused = 0;
  const track = (s: net.Socket) => {
    sockets.add(s);
    s.on('error', () => {});
    s.once('close', () => sockets.delete(s));
  };

  const handle = (client: net.Socket): void => {
    accepted += 1;
    track(client);
    client.setNoDelay(true);
    const reader = new MessageReader();
    let stage: 'startup' | 'password' | 'relay' = 'startup';
    let params = new Map<string, string>();
    const fail = (code: string, message: string): void => {
      stage = 'relay';
      client.off('data', onData);
      client.end(errorResponse({ code, message }, 'FATAL'));
    };

    const login = async (password: string): Promise<void> => {
      const user = params.get('user') ?? '';
      if (user === opts.master.user) {
        if (!samePassword(password, opts.master.password)) {
          refused += 1;
          return fail('28P01', `password authentication failed for user "${user}"`);
        }
      } else {
        const verdict = await verifyRdsToken(password, { host: opts.expectedHost, user }, opts.credentials);
        if (!verdict.ok) {
          refused += 1;
          opts.log?.(`[aurorapg] refused ${user}: ${verdict.reason}`);
          return fail('28P01', `PAM authentication failed for user "${user}"`);
        }
      }
      // The instance answers a login only once it runs: a paused one resumes first.
      const r = resume.opened();
      client.once('close', () => resume.closed());
      if (r.holdMs > 0) {
        if (r.pausedMs > 0)
          opts.log?.(`[aurorapg] resuming after ${Math.round(r.pausedMs / 1000)} s paused: ${r.holdMs} ms`);
        await new Promise((done) => setTimeout(done, r.holdMs));
      }
      if (client.destroyed) return;
      const server = net.connect({ path: opts.backendSocket });
      track(server);
      let connected = false;
      server.once('error', (error) => {
        if (!connected) fail('57P03', `the database system is not accepting connections: ${error.message}`);
      });
      server.once('connect', () => {
        connected = true;
        if (client.destroyed) return server.destroy();
        server.write(startupMessage(new Map([...params, ...Object.entries(AURORA_SESSION_DEFAULTS)])));
        let head: Buffer | undefined = r.holdMs > 0 ? Buffer.alloc(0) : undefined;
        server.on('data', (chunk: Buffer) => {
          if (head === undefined) {
            if (!client.write(chunk)) server.pause();
            return;
          }
          // Hold the server's first bytes until AuthenticationOk is whole, then the notice after it.
          head = Buffer.concat([head, chunk]);
          if (head.length < AUTH_OK_LENGTH) return;
          const out = head;
          head = undefined;
          const ok = out[0] === 0x52 && out.readInt32BE(5) === 0;
          client.write(out.subarray(0, AUTH_OK_LENGTH));
          if (ok)
            client.write(noticeResponse(`aurorapg local: resumed from auto-pause after ${r.holdMs} ms`));
          if (!client.write(out.subarray(AUTH_OK_LENGTH))) server.pause();
        });
        client.on('drain', () => server.resume());
        server.on('drain', () => client.resume());
        client.on('data', (chunk: Buffer) => {
          if (!server.write(chunk)) client.pause();
        });
        const rest = reader.rest();
        if (rest.length > 0) server.write(rest);
        client.once('close', () => endThenDestroy(server));
        server.once('close', (hadError) => (hadError ? client.destroy() : endThenDestroy(client)));
        client.resume();
      });
    };

    const onData = (chunk: Buffer): void => {
      reader.push(chunk);
      try {
        while (stage === 'startup') {
          const message = reader.untyped(MAX_HANDSHAKE_MESSAGE);
          if (message === undefined) return;
          const code = message.readInt32BE(4);
          if (code === SSL_REQUEST_CODE || code === GSSENC_REQUEST_CODE) {
            // TLS belongs to the network model in front.
            client.write('N');
            continue;
          }
          if (code === CANCEL_REQUEST_CODE) {
            const server = net.connect({ path: opts.backendSocket }, () => server.end(message));
            track(server);
            client.end();
            return;
          }
          if (code !== PROTOCOL_3) {
            fail('08P01', `unsupported frontend protocol ${code >> 16}.${code & 0xffff}`);
            return;
          }
          params = startupParameters(message);
          if (!params.get('user')) {
            fail('28000', 'no PostgreSQL user name specified in startup packet');
            return;
          }
          stage = 'password';
          client.write(authenticationCleartextPassword());
        }
        if (stage === 'password') {
          const message = reader.typed(MAX_HANDSHAKE_MESSAGE);
          if (message === undefined) return;
          if (message[0] !== 0x70 /* p */) {
            fail('08P01', 'expected password response');
            return;
          }
          stage = 'relay';
          client.off('data', onData);
          client.pause();
          login(message.subarray(5, message.length - 1).toString('utf8')).catch((error: unknown) =>
            fail('XX000', `authentication failed: ${(error as Error).message}`),
          );
        }
      } catch (error) {
        fail('08P01', (error as Error).message);
      }
    };
    client.on('data', onData);
  };

  const server = net.createServer({ noDelay: true }, (client) => {
    try {
      handle(client);
    } catch (error) {
      opts.log?.(`[aurorapg] internal error: ${(error as Error).stack ?? error}`);
      client.destroy();
    }
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(opts.port ?? 0, '127.0.0.1', () => {
      server.off('error', reject);
      resolve();
    });
  });
  return {
    port: (server.address() as net.AddressInfo).port,
    resume,
    stats: () => ({ accepted, refused, ...resume.stats() }),
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        for (const s of sockets) s.destroy();
      }),
  };
}
