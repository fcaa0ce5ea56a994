/** The aurorapg target's functions: one export per operation, over one store per environment. */
import { readLabFunction } from '../../lambda/shared/env';
import {
  makeCreateHandler,
  makeGetHandler,
  makeOverwriteHandler,
  makeQueryHandler,
  makeTop10Handler,
  makeUpdateHandler,
  makeViewHandler,
} from '../../lambda/shared/handlers';
import { prewarmed } from '../../lambda/shared/prewarm';
import { auroraStoreFromEnv } from './store';

const name = readLabFunction();
const store = await prewarmed(auroraStoreFromEnv());

export const create = makeCreateHandler(store, name);
export const get = makeGetHandler(store, name);
export const overwrite = makeOverwriteHandler(store, name);
export const update = makeUpdateHandler(store, name);
export const query = makeQueryHandler(store, name);
export const view = makeViewHandler(store, name);
export const top10 = makeTop10Handler(store, name);
