import { makeCreateHandler } from '../shared/handlers';
import { prewarmed } from '../shared/prewarm';
import { qldbStoreFromEnv } from '../shared/qldb-store';

export const handler = makeCreateHandler(await prewarmed(qldbStoreFromEnv()), 'qldb-create');
