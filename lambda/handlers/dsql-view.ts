import { dsqlStoreFromEnv } from '../shared/dsql-store';
import { makeViewHandler } from '../shared/handlers';
import { prewarmed } from '../shared/prewarm';

export const handler = makeViewHandler(await prewarmed(dsqlStoreFromEnv()), 'dsql-view');
