import { dynamoDbStoreFromEnv } from '../shared/dynamodb-store';
import { makeQueryHandler } from '../shared/handlers';

export const handler = makeQueryHandler(dynamoDbStoreFromEnv(), 'dynamodb-query');
