import { updatePerson } from '../shared/handlers';
import { makeRedisHandler } from '../shared/redis-handler';

export const handler = makeRedisHandler(updatePerson, 'redis-update');
