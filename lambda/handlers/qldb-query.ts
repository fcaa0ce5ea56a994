import { makeQueryHandler } from '../shared/handlers';
import { qldbStoreFromEnv } from '../shared/qldb-store';

export const handler = makeQueryHandler(qldbStoreFromEnv(), 'qldb-query');
