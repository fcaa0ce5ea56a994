import { dynamoDbStoreFromEnv } from '../shared/dynamodb-store';
import { makeOverwriteHandler } from '../shared/handlers';

export const handler = makeOverwriteHandler(dynamoDbStoreFromEnv(), 'dynamodb-overwrite');
