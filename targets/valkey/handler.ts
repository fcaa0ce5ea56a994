/**
 * The valkey target's functions, one export per operation (the CDK function's `handler` names
 * it), over one store per execution environment made at init: the cache's address and user come
 * from the environment, the IAM token from the function's own credentials (store.ts), so unlike
 * the redis target there is no secret to read first. Each function's name is its LAB_FUNCTION.
 */
import { readLabFunction } from '../../lambda/shared/env';
import {
  makeCreateHandler,
  makeGetHandler,
  makeOverwriteHandler,
  makeQueryHandler,
  makeUpdateHandler,
} from '../../lambda/shared/handlers';
import { valkeyStoreFromEnv } from './store';

const name = readLabFunction();
const store = valkeyStoreFromEnv();

export const create = makeCreateHandler(store, name);
export const get = makeGetHandler(store, name);
export const overwrite = makeOverwriteHandler(store, name);
export const update = makeUpdateHandler(store, name);
export const query = makeQueryHandler(store, name);
