/**
 * The valkey target's local server: redis-server, started by the redis target's launcher
 * (targets/redis/engine.ts), as an instance of its own and configured as a serverless cache
 * presents itself:
 *
 * - cluster mode on, every slot owned by this one node: a serverless cache is cluster-mode
 *   enabled with all slots surfaced as one virtual node, so a command or script whose keys span
 *   slots is refused with CROSSSLOT, here as there
 *   (https://docs.aws.amazon.com/AmazonElastiCache/latest/dg/RedisConfiguration.html, "Serverless caches");
 * - the functions' user with the target's access string (access.ts), and `default` switched
 *   off, as the user group the CDK half makes holds it;
 * - the lab's own admin user (a random password per run) for the health check and set-up.
 *
 * What differs: ElastiCache checks the IAM token the functions send as the password; locally
 * the user is `nopass`, which accepts any password (README.md, "What differs from AWS").
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Redis } from 'ioredis';
import { type RedisEngine, startRedis } from '../redis/engine';
import { ACCESS_STRING } from './access';

/** The lab's own user: set-up and health checks, never the functions. */
export const ADMIN_USER = 'lab-admin';
/** Every hash slot of a Valkey cluster (cluster specification: 16384 slots). */
const LAST_SLOT = 16_383;
const CLUSTER_READY_MS = 10_000;

export interface StartValkeyOptions {
  /** The functions' user (cdk.ts names it from the stack): any password is accepted for it. */
  readonly user: string;
  /** The admin user's password (and requirepass, until `default` is switched off). */
  readonly password: string;
  readonly port?: number;
  readonly dataDir?: string;
  readonly durable?: boolean;
  readonly idleTimeoutS?: number;
  readonly log?: (line: string) => void;
}

export interface ValkeyEngine {
  readonly endpoint: string;
  /** redis://lab-admin:<password>@127.0.0.1:PORT: the admin's URL (health, tests). */
  readonly adminUrl: string;
  readonly port: number;
  readonly pid: number;
  /** Stops the server and starts it again on the same port, data and cluster config. */
  restart(): Promise<void>;
  stop(): Promise<void>;
}

/** Runs `commands` as `default` (requirepass) on a new connection; the server is fresh or just restarted. */
async function configure(port: number, opts: StartValkeyOptions): Promise<void> {
  const client = new Redis({
    host: '127.0.0.1',
    port,
    password: opts.password,
    lazyConnect: true,
    maxRetriesPerRequest: 0,
    retryStrategy: () => null,
  });
  client.on('error', () => {});
  try {
    await client.connect();
    // A restarted node keeps its slots in its cluster config file; a new one takes them all.
    const info = String(await client.call('CLUSTER', 'INFO'));
    if (!/cluster_slots_assigned:16384/.test(info))
      await client.call('CLUSTER', 'ADDSLOTSRANGE', '0', String(LAST_SLOT));
    const deadline = Date.now() + CLUSTER_READY_MS;
    while (!/cluster_state:ok/.test(String(await client.call('CLUSTER', 'INFO')))) {
      if (Date.now() > deadline)
        throw new Error(`valkey: cluster state not ok within ${CLUSTER_READY_MS} ms`);
      await new Promise((r) => setTimeout(r, 50));
    }
    await client.call('ACL', 'SETUSER', ADMIN_USER, 'reset', 'on', `>${opts.password}`, '~*', '&*', '+@all');
    await client.call('ACL', 'SETUSER', opts.user, 'reset', 'nopass', ...ACCESS_STRING.split(' '));
    // Last: this connection is `default` and ends with it.
    await client.call('ACL', 'SETUSER', 'default', 'off');
  } finally {
    client.disconnect();
  }
}

export async function startValkey(opts: StartValkeyOptions): Promise<ValkeyEngine> {
  if (!/^[a-z][a-z0-9-]{0,39}$/.test(opts.user)) {
    throw new Error(
      `startValkey: user must be an ElastiCache user id (lower-case, digits, -), got ${opts.user}`,
    );
  }
  // The node's cluster config file: its own folder, so two lab servers never share one.
  const clusterDir = opts.dataDir ?? (await mkdtemp(join(tmpdir(), 'lab-valkey-cluster-')));
  const launch = async (port?: number): Promise<RedisEngine> => {
    const engine = await startRedis({
      port,
      password: opts.password,
      dataDir: opts.dataDir,
      durable: opts.durable,
      idleTimeoutS: opts.idleTimeoutS,
      log: opts.log,
      extraArgs: ['--cluster-enabled', 'yes', '--cluster-config-file', join(clusterDir, 'nodes.conf')],
    });
    try {
      await configure(engine.port, opts);
    } catch (error) {
      await engine.stop();
      throw error;
    }
    return engine;
  };
  let engine: RedisEngine;
  try {
    engine = await launch(opts.port);
  } catch (error) {
    if (opts.dataDir === undefined) await rm(clusterDir, { recursive: true, force: true });
    throw error;
  }
  const port = engine.port;
  return {
    endpoint: engine.endpoint,
    adminUrl: `redis://${ADMIN_USER}:${opts.password}@127.0.0.1:${port}`,
    port,
    get pid() {
      return engine.pid;
    },
    async restart() {
      await engine.stop();
      engine = await launch(port);
    },
    async stop() {
      await engine.stop();
      if (opts.dataDir === undefined) await rm(clusterDir, { recursive: true, force: true });
    },
  };
}
