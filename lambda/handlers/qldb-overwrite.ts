import { makeOverwriteHandler } from '../shared/handlers';
import { qldbStoreFromEnv } from '../shared/qldb-store';

export const handler = makeOverwriteHandler(qldbStoreFromEnv(), 'qldb-overwrite');
