import { dynamoDbStoreFromEnv } from '../shared/dynamodb-store';
import { makeCreateHandler } from '../shared/handlers';
import { prewarmed } from '../shared/prewarm';

export const handler = makeCreateHandler(await prewarmed(dynamoDbStoreFromEnv()), 'dynamodb-create');
