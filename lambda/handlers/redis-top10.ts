import { topStories } from '../shared/handlers';
import { makeRedisHandler } from '../shared/redis-handler';

export const handler = makeRedisHandler(topStories, 'redis-top10');
