/**
 * Redis locally: a real redis-server (targets/redis/engine.ts) with a random password per lab
 * run, behind the network model like every engine, and a stand-in for the AWS Parameters and
 * Secrets Lambda Extension that answers the functions' secret read with the URL of that model:
 * rediss://default:<password>@localhost:<model port> (TLS through the model, verified against
 * the lab CA; the certificate names localhost).
 */
import { randomBytes } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { LOCAL_SESSION_TOKEN } from '../../local/lab-defaults';
import { engineDataDir } from '../../local/run-dir';
import { type LocalTarget, type ModelAddress, withEngine } from '../../local/targets/types';
import { checkRedisServer, startRedis } from './engine';
import { redisHealth } from './health';

export interface ExtensionStandIn {
  readonly port: number;
  /** Reads answered 200 so far. */
  readonly served: () => number;
  close(): Promise<void>;
}

/**
 * GET /secretsmanager/get?secretId=<id> with X-Aws-Parameters-Secrets-Token, answered with
 * GetSecretValue's JSON for the secrets it knows, and with the extension's 400/401 otherwise.
 */
export async function startExtensionStandIn(
  secrets: (id: string) => string | undefined,
  token: string,
): Promise<ExtensionStandIn> {
  let served = 0;
  const server: Server = createServer((req, res) => {
    const answer = (status: number, body: unknown) => {
      res.writeHead(status, { 'content-type': 'application/json' });
      res.end(JSON.stringify(body));
    };
    const url = new URL(req.url ?? '/', 'http://localhost');
    if (req.method !== 'GET' || url.pathname !== '/secretsmanager/get') {
      return answer(404, { message: `not found: ${req.method} ${url.pathname}` });
    }
    if (req.headers['x-aws-parameters-secrets-token'] !== token) {
      return answer(401, { message: 'missing or wrong X-Aws-Parameters-Secrets-Token' });
    }
    const id = url.searchParams.get('secretId') ?? '';
    const value = secrets(id);
    if (value === undefined) {
      return answer(400, {
        __type: 'ResourceNotFoundException',
        message: `Secrets Manager can't find the specified secret: ${id}`,
      });
    }
    served += 1;
    const name = id.replace(/^.*:secret:/, '').replace(/-[A-Za-z0-9]{6}$/, '');
    answer(200, {
      ARN: id,
      Name: name,
      VersionId: '00000000-0000-0000-0000-000000000001',
      SecretString: value,
      VersionStages: ['AWSCURRENT'],
      CreatedDate: '2026-01-01T00:00:00.000Z',
    });
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', resolve);
  });
  return {
    port: (server.address() as AddressInfo).port,
    served: () => served,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** Every REDIS_SECRET_ARN the synthesized functions name: the stand-in answers those only. */
function secretArnsOf(fns: readonly { environment: Record<string, unknown> }[]): Set<string> {
  const arns = new Set<string>();
  for (const fn of fns) {
    const arn = fn.environment.REDIS_SECRET_ARN;
    if (typeof arn === 'string') arns.add(arn);
  }
  return arns;
}

export const redisTarget: LocalTarget = {
  findEngine: checkRedisServer,
  async start(opts) {
    // The append-only file is in --data (fsynced) or the run data (written; see engine.ts).
    const { dataDir, durable, removeData } = await engineDataDir(opts, 'redis');
    // A new password per lab run: nothing but this lab's functions should reach this server.
    const password = randomBytes(18).toString('base64url');
    const start = (port?: number) =>
      startRedis({ port, password, dataDir, durable, idleTimeoutS: opts.idleTimeoutS, log: opts.log });
    let engine: Awaited<ReturnType<typeof start>>;
    try {
      engine = await start();
    } catch (error) {
      await removeData();
      throw error;
    }
    const arns = secretArnsOf(opts.assembly.functions);
    let model: ModelAddress | undefined;
    let extension: ExtensionStandIn;
    try {
      extension = await startExtensionStandIn(
        (id) => (arns.has(id) && model ? `rediss://default:${password}@localhost:${model.port}` : undefined),
        LOCAL_SESSION_TOKEN,
      );
    } catch (error) {
      await engine.stop();
      await removeData();
      throw error;
    }
    return withEngine(() => engine, {
      description: 'redis-server',
      tables: [],
      nameOf: () => undefined,
      functionEnv(address) {
        model = address;
        return {
          PARAMETERS_SECRETS_EXTENSION_HTTP_PORT: String(extension.port),
        };
      },
      // The user named: redis-cli 7.0 -u sends `AUTH "" <password>` for `rediss://:<password>@`, refused.
      clientEnv: (address) => ({ REDIS_URL: `rediss://default:${password}@localhost:${address.port}` }),
      health: (signal) => redisHealth(engine.url, signal),
      async seedStories(stories, signal) {
        const { seedRedis } = await import('./seed-stories');
        await seedRedis(engine.endpoint, password, stories, signal);
      },
      async restart() {
        await engine.stop();
        engine = await start(engine.port);
      },
      async stop() {
        await extension.close();
        await engine.stop();
        await removeData();
      },
    });
  },
};
