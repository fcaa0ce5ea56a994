import { makeOverwriteHandler } from '../shared/handlers';
import { prewarmed } from '../shared/prewarm';
import { qldbStoreFromEnv } from '../shared/qldb-store';

export const handler = makeOverwriteHandler(await prewarmed(qldbStoreFromEnv()), 'qldb-overwrite');
