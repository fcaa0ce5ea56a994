import { dsqlStoreFromEnv } from '../shared/dsql-store';
import { makeQueryHandler } from '../shared/handlers';
import { prewarmed } from '../shared/prewarm';

export const handler = makeQueryHandler(await prewarmed(dsqlStoreFromEnv()), 'dsql-query');
