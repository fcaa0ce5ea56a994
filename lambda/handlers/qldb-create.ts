import { makeCreateHandler } from '../shared/handlers';
import { qldbStoreFromEnv } from '../shared/qldb-store';

export const handler = makeCreateHandler(qldbStoreFromEnv(), 'qldb-create');
