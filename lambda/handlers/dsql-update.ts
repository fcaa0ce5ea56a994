import { dsqlStoreFromEnv } from '../shared/dsql-store';
import { makeUpdateHandler } from '../shared/handlers';

export const handler = makeUpdateHandler(dsqlStoreFromEnv(), 'dsql-update');
