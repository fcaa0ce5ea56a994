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
} from '../../lambda/shared/handlers';
import { makeRedisHandler } from './redis-handler';

export const create = makeRedisHandler(createPerson);
export const get = makeRedisHandler(getPerson);
export const overwrite = makeRedisHandler(overwritePerson);
export const update = makeRedisHandler(updatePerson);
export const query = makeRedisHandler(queryPersons);
export const view = makeRedisHandler(viewStory);
export const top10 = makeRedisHandler(topStories);
