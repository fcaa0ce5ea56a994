import { makeQueryHandler } from '../shared/handlers';
import { prewarmed } from '../shared/prewarm';
import { qldbStoreFromEnv } from '../shared/qldb-store';

export const handler = makeQueryHandler(await prewarmed(qldbStoreFromEnv()), 'qldb-query');
