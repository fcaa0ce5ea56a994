import { dsqlStoreFromEnv } from '../shared/dsql-store';
import { makeUpdateHandler } from '../shared/handlers';
import { prewarmed } from '../shared/prewarm';

export const handler = makeUpdateHandler(await prewarmed(dsqlStoreFromEnv()), 'dsql-update');
