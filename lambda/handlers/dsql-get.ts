import { dsqlStoreFromEnv } from '../shared/dsql-store';
import { makeGetHandler } from '../shared/handlers';
import { prewarmed } from '../shared/prewarm';

export const handler = makeGetHandler(await prewarmed(dsqlStoreFromEnv()), 'dsql-get');
