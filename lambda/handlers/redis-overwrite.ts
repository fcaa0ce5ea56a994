import { overwritePerson } from '../shared/handlers';
import { makeRedisHandler } from '../shared/redis-handler';

export const handler = makeRedisHandler(overwritePerson, 'redis-overwrite');
