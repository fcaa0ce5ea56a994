import { dynamoDbStoreFromEnv } from '../shared/dynamodb-store';
import { makeCreateHandler } from '../shared/handlers';

export const handler = makeCreateHandler(dynamoDbStoreFromEnv(), 'dynamodb-create');
