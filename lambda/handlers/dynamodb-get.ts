import { dynamoDbStoreFromEnv } from '../shared/dynamodb-store';
import { makeGetHandler } from '../shared/handlers';
import { prewarmed } from '../shared/prewarm';

export const handler = makeGetHandler(await prewarmed(dynamoDbStoreFromEnv()), 'dynamodb-get');
