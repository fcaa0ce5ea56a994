import { dsqlStoreFromEnv } from '../shared/dsql-store';
import { makeQueryHandler } from '../shared/handlers';

export const handler = makeQueryHandler(dsqlStoreFromEnv(), 'dsql-query');
