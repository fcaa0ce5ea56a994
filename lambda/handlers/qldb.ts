/**
 * QLDB's functions, one export per operation (the CDK function's `handler` names it), over
 * one store per execution environment, opened (and prewarmed when asked) at init.
 */

import {
  makeCreateHandler,
  makeGetHandler,
  makeOverwriteHandler,
  makeQueryHandler,
  makeUpdateHandler,
} from '../shared/handlers';
import { prewarmed } from '../shared/prewarm';
import { qldbStoreFromEnv } from '../shared/qldb-store';

const store = await prewarmed(qldbStoreFromEnv());

export const create = makeCreateHandler(store, 'qldb-create');
export const get = makeGetHandler(store, 'qldb-get');
export const overwrite = makeOverwriteHandler(store, 'qldb-overwrite');
export const update = makeUpdateHandler(store, 'qldb-update');
export const query = makeQueryHandler(store, 'qldb-query');
