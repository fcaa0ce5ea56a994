/** The throwaway target's functions: one export per operation it serves, over one store. */
import {
  makeCreateHandler,
  makeGetHandler,
  makeOverwriteHandler,
  makeQueryHandler,
  makeUpdateHandler,
} from '../../../lambda/shared/handlers';
import { throwawayStoreFromEnv } from './store';

const store = throwawayStoreFromEnv();

export const create = makeCreateHandler(store, 'throwaway-create');
export const get = makeGetHandler(store, 'throwaway-get');
export const overwrite = makeOverwriteHandler(store, 'throwaway-overwrite');
export const update = makeUpdateHandler(store, 'throwaway-update');
export const query = makeQueryHandler(store, 'throwaway-query');
