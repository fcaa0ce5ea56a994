/**
 * Aurora DSQL's functions, one export per operation (the CDK function's `handler` names it), over
 * one store per execution environment, opened (and prewarmed when asked) at init.
 */
import { dsqlStoreFromEnv } from '../shared/dsql-store';
import {
  makeCreateHandler,
  makeGetHandler,
  makeOverwriteHandler,
  makeQueryHandler,
  makeTop10Handler,
  makeUpdateHandler,
  makeViewHandler,
} from '../shared/handlers';
import { prewarmed } from '../shared/prewarm';

const store = await prewarmed(dsqlStoreFromEnv());

export const create = makeCreateHandler(store, 'dsql-create');
export const get = makeGetHandler(store, 'dsql-get');
export const overwrite = makeOverwriteHandler(store, 'dsql-overwrite');
export const update = makeUpdateHandler(store, 'dsql-update');
export const query = makeQueryHandler(store, 'dsql-query');
export const view = makeViewHandler(store, 'dsql-view');
export const top10 = makeTop10Handler(store, 'dsql-top10');
