import { queryPersons } from '../shared/handlers';
import { makeRedisHandler } from '../shared/redis-handler';

export const handler = makeRedisHandler(queryPersons, 'redis-query');
