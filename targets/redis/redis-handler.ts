/**
 * The redis functions' handler: the shared flow (handlers.ts) over a store whose URL is read
 * from Secrets Manager through the Parameters and Secrets extension. The variables are checked
 * at init (a missing one fails the init with its name); the secret is read on the first
 * invocation, because the extension serves INVOKE only, and then never again in this
 * environment. The read is not database time: it happens before the timed store call. The
 * function's name is its LAB_FUNCTION, read with the rest at init.
 */

import { readLabFunction } from '../../lambda/shared/env';
import { type ApiHandler, makeHandler, type Operation } from '../../lambda/shared/handlers';
import { emitTiming } from '../../lambda/shared/metrics';
import type { PersonStore } from '../../lambda/shared/person-store';
import {
  enterInvocation,
  environmentId,
  initType,
  nextInvocationIsCold,
  type Timing,
} from '../../lambda/shared/timing-meter';
import { type RedisPersonStore, readRedisEnv, redisStoreFromEnv } from './store';

export function makeRedisHandler<Input, Output>(
  op: Operation<Input, Output>,
  env: NodeJS.ProcessEnv = process.env,
  openStore: (env: NodeJS.ProcessEnv) => Promise<RedisPersonStore> = redisStoreFromEnv,
): ApiHandler {
  readRedisEnv(env);
  const fn = readLabFunction(env);
  let ready: Promise<ApiHandler> | undefined;
  return async (event) => {
    ready ??= openStore(env).then(
      (store: PersonStore) => makeHandler(store, fn, op),
      (error: unknown) => {
        // Not cached: the next invocation tries again (a secret just created, a throttle).
        ready = undefined;
        throw error;
      },
    );
    let handler: ApiHandler;
    try {
      handler = await ready;
    } catch (error) {
      // The answer is synchronous from here: this invocation leaves as soon as it has counted itself.
      const entered = enterInvocation();
      entered.leave();
      const timing: Timing = {
        dbMs: 0,
        newConnection: false,
        dbRequests: 0,
        dbRoundTrips: 0,
        coldStart: nextInvocationIsCold(),
        initType: initType(env),
        environment: environmentId(env),
        concurrency: entered.concurrency,
      };
      const message = `Redis ${op.name} failed: the database URL could not be read: ${(error as Error).message}`;
      console.error(JSON.stringify({ level: 'error', message, timing }));
      emitTiming(fn, 503, timing);
      return {
        statusCode: 503,
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ error: message, timing }),
      };
    }
    return handler(event);
  };
}
