import { makeGetHandler } from '../shared/handlers';
import { qldbStoreFromEnv } from '../shared/qldb-store';

export const handler = makeGetHandler(qldbStoreFromEnv(), 'qldb-get');
