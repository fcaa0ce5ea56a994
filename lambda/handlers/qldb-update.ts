import { makeUpdateHandler } from '../shared/handlers';
import { prewarmed } from '../shared/prewarm';
import { qldbStoreFromEnv } from '../shared/qldb-store';

export const handler = makeUpdateHandler(await prewarmed(qldbStoreFromEnv()), 'qldb-update');
