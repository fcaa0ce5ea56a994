/**
 * Redis's functions, one export per operation (the CDK function's `handler` names it). The URL
 * comes from Secrets Manager on the first invocation (shared/redis-handler.ts).
 */
import {
  createPerson,
  getPerson,
  overwritePerson,
  queryPersons,
  topStories,
  updatePerson,
  viewStory,
} from '../shared/handlers';
import { makeRedisHandler } from '../shared/redis-handler';

export const create = makeRedisHandler(createPerson, 'redis-create');
export const get = makeRedisHandler(getPerson, 'redis-get');
export const overwrite = makeRedisHandler(overwritePerson, 'redis-overwrite');
export const update = makeRedisHandler(updatePerson, 'redis-update');
export const query = makeRedisHandler(queryPersons, 'redis-query');
export const view = makeRedisHandler(viewStory, 'redis-view');
export const top10 = makeRedisHandler(topStories, 'redis-top10');
