import { makeGetHandler } from '../shared/handlers';
import { prewarmed } from '../shared/prewarm';
import { qldbStoreFromEnv } from '../shared/qldb-store';

export const handler = makeGetHandler(await prewarmed(qldbStoreFromEnv()), 'qldb-get');
