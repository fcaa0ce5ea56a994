/**
 * DynamoDB's functions, one export per operation (the CDK function's `handler` names it), over
 * one store per execution environment, opened (and prewarmed when asked) at init.
 */
import { dynamoDbStoreFromEnv } from '../shared/dynamodb-store';
import {
  makeCreateHandler,
  makeGetHandler,
  makeOverwriteHandler,
  makePut10Handler,
  makeQueryHandler,
  makeTop10Handler,
  makeUpdateHandler,
  makeViewHandler,
} from '../shared/handlers';
import { prewarmed } from '../shared/prewarm';

const store = await prewarmed(dynamoDbStoreFromEnv());

export const create = makeCreateHandler(store, 'dynamodb-create');
export const get = makeGetHandler(store, 'dynamodb-get');
export const overwrite = makeOverwriteHandler(store, 'dynamodb-overwrite');
export const update = makeUpdateHandler(store, 'dynamodb-update');
export const query = makeQueryHandler(store, 'dynamodb-query');
export const put10 = makePut10Handler(store, 'dynamodb-put10');
export const view = makeViewHandler(store, 'dynamodb-view');
export const top10 = makeTop10Handler(store, 'dynamodb-top10');
