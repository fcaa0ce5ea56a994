import { dynamoDbStoreFromEnv } from '../shared/dynamodb-store';
import { makeUpdateHandler } from '../shared/handlers';

export const handler = makeUpdateHandler(dynamoDbStoreFromEnv(), 'dynamodb-update');
