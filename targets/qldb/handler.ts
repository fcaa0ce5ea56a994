/**
 * QLDB's functions, one export per operation (the CDK function's `handler` names it), over
 * one store per execution environment, opened (and prewarmed when asked) at init.
 */

import { readLabFunction } from '../../lambda/shared/env';
import {
  makeCreateHandler,
  makeGetHandler,
  makeOverwriteHandler,
  makeQueryHandler,
  makeUpdateHandler,
} from '../../lambda/shared/handlers';
import { prewarmed } from '../../lambda/shared/prewarm';
import { qldbStoreFromEnv } from './store';

const name = readLabFunction();
const store = await prewarmed(qldbStoreFromEnv());

export const create = makeCreateHandler(store, name);
export const get = makeGetHandler(store, name);
export const overwrite = makeOverwriteHandler(store, name);
export const update = makeUpdateHandler(store, name);
export const query = makeQueryHandler(store, name);
