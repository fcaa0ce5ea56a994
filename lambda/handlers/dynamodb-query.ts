import { dynamoDbStoreFromEnv } from '../shared/dynamodb-store';
import { makeQueryHandler } from '../shared/handlers';
import { prewarmed } from '../shared/prewarm';

export const handler = makeQueryHandler(await prewarmed(dynamoDbStoreFromEnv()), 'dynamodb-query');
