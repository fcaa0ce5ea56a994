/** The throwaway target's functions: one export per operation it serves, over one store. */
import { readLabFunction } from '../../../lambda/shared/env';
import {
  makeCreateHandler,
  makeGetHandler,
  makeOverwriteHandler,
  makeQueryHandler,
  makeUpdateHandler,
} from '../../../lambda/shared/handlers';
import { throwawayStoreFromEnv } from './store';

const name = readLabFunction();
const store = throwawayStoreFromEnv();

export const create = makeCreateHandler(store, name);
export const get = makeGetHandler(store, name);
export const overwrite = makeOverwriteHandler(store, name);
export const update = makeUpdateHandler(store, name);
export const query = makeQueryHandler(store, name);
