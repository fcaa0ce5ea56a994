import { viewStory } from '../shared/handlers';
import { makeRedisHandler } from '../shared/redis-handler';

export const handler = makeRedisHandler(viewStory, 'redis-view');
