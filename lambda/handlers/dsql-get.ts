import { dsqlStoreFromEnv } from '../shared/dsql-store';
import { makeGetHandler } from '../shared/handlers';

export const handler = makeGetHandler(dsqlStoreFromEnv(), 'dsql-get');
