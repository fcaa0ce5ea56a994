import { dynamoDbStoreFromEnv } from '../shared/dynamodb-store';
import { makeViewHandler } from '../shared/handlers';
import { prewarmed } from '../shared/prewarm';

export const handler = makeViewHandler(await prewarmed(dynamoDbStoreFromEnv()), 'dynamodb-view');
