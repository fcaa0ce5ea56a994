import { dsqlStoreFromEnv } from '../shared/dsql-store';
import { makeOverwriteHandler } from '../shared/handlers';

export const handler = makeOverwriteHandler(dsqlStoreFromEnv(), 'dsql-overwrite');
