import { dsqlStoreFromEnv } from '../shared/dsql-store';
import { makeOverwriteHandler } from '../shared/handlers';
import { prewarmed } from '../shared/prewarm';

export const handler = makeOverwriteHandler(await prewarmed(dsqlStoreFromEnv()), 'dsql-overwrite');
