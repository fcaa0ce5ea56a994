import { dynamoDbStoreFromEnv } from '../shared/dynamodb-store';
import { makeGetHandler } from '../shared/handlers';

export const handler = makeGetHandler(dynamoDbStoreFromEnv(), 'dynamodb-get');
