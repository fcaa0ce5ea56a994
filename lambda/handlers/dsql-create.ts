import { dsqlStoreFromEnv } from '../shared/dsql-store';
import { makeCreateHandler } from '../shared/handlers';
import { prewarmed } from '../shared/prewarm';

export const handler = makeCreateHandler(await prewarmed(dsqlStoreFromEnv()), 'dsql-create');
