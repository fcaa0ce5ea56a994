import { dynamoDbStoreFromEnv } from '../shared/dynamodb-store';
import { makeUpdateHandler } from '../shared/handlers';
import { prewarmed } from '../shared/prewarm';

export const handler = makeUpdateHandler(await prewarmed(dynamoDbStoreFromEnv()), 'dynamodb-update');
