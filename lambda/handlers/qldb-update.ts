import { makeUpdateHandler } from '../shared/handlers';
import { qldbStoreFromEnv } from '../shared/qldb-store';

export const handler = makeUpdateHandler(qldbStoreFromEnv(), 'qldb-update');
