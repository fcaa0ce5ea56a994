/**
 * The valkey target locally: its own redis-server (engine.ts: the redis target's launcher, cluster
 * mode, the functions' user, `default` off) behind the network model's TLS, which the functions
 * reach as localhost:<model port> with the lab CA trusted. Its own instance rather than the redis
 * target's server: cluster mode is a start-up setting, and the redis target's scripts, whose keys
 * span slots, would be refused on it (CROSSSLOT); its users (default off) would lock out the
 * redis target's password; and each target restarts its own server in fault runs.
 */
import { randomBytes } from 'node:crypto';
import { engineDataDir } from '../../local/run-dir';
import { type LocalTarget, withEngine } from '../../local/targets/types';
import { checkRedisServer } from '../redis/engine';
import { redisHealth } from '../redis/health';
import { valkeyUserId } from './access';
import { startValkey, type ValkeyEngine } from './engine';
import { VALKEY_ENDPOINT_ENV, VALKEY_PORT_ENV, VALKEY_URL_ENV, VALKEY_USER_ENV } from './env-names';

/** What a client outside the lab sends as the token: the local server takes any. */
export const LOCAL_TOKEN = 'local-token';

/** The user the synthesized functions name (one per lab: cdk.ts derives it from the data stack). */
function userOf(fns: readonly { environment: Record<string, unknown> }[]): string {
  for (const fn of fns) {
    const user = fn.environment[VALKEY_USER_ENV];
    if (typeof user === 'string') return user;
  }
  return valkeyUserId('LatencyLab-Data');
}

export const valkeyTarget: LocalTarget = {
  findEngine: checkRedisServer,
  async start(opts) {
    const { dataDir, durable, removeData } = await engineDataDir(opts, 'valkey');
    const user = userOf(opts.assembly.functions);
    let engine: ValkeyEngine;
    try {
      engine = await startValkey({
        user,
        // The lab's admin password, new per run; the functions never see it.
        password: randomBytes(18).toString('base64url'),
        dataDir,
        durable,
        idleTimeoutS: opts.idleTimeoutS,
        log: opts.log,
      });
    } catch (error) {
      await removeData();
      throw error;
    }
    return withEngine(() => engine, {
      description: 'redis-server (cluster mode, as a serverless cache)',
      tables: [],
      nameOf: () => undefined,
      functionEnv: (model) => ({ [VALKEY_ENDPOINT_ENV]: 'localhost', [VALKEY_PORT_ENV]: String(model.port) }),
      clientEnv: (model) => ({ [VALKEY_URL_ENV]: `rediss://${user}:${LOCAL_TOKEN}@localhost:${model.port}` }),
      health: (signal) => redisHealth(engine.adminUrl, signal),
      restart: () => engine.restart(),
      async stop() {
        await engine.stop();
        await removeData();
      },
    });
  },
};
