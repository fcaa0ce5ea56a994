import { getPerson } from '../shared/handlers';
import { makeRedisHandler } from '../shared/redis-handler';

export const handler = makeRedisHandler(getPerson, 'redis-get');
