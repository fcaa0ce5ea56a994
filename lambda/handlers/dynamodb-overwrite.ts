import { dynamoDbStoreFromEnv } from '../shared/dynamodb-store';
import { makeOverwriteHandler } from '../shared/handlers';
import { prewarmed } from '../shared/prewarm';

export const handler = makeOverwriteHandler(await prewarmed(dynamoDbStoreFromEnv()), 'dynamodb-overwrite');
