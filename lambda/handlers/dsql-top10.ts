import { dsqlStoreFromEnv } from '../shared/dsql-store';
import { makeTop10Handler } from '../shared/handlers';
import { prewarmed } from '../shared/prewarm';

export const handler = makeTop10Handler(await prewarmed(dsqlStoreFromEnv()), 'dsql-top10');
