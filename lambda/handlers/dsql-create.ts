import { dsqlStoreFromEnv } from '../shared/dsql-store';
import { makeCreateHandler } from '../shared/handlers';

export const handler = makeCreateHandler(dsqlStoreFromEnv(), 'dsql-create');
