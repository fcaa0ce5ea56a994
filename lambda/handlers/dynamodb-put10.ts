import { dynamoDbStoreFromEnv } from '../shared/dynamodb-store';
import { makePut10Handler } from '../shared/handlers';
import { prewarmed } from '../shared/prewarm';

export const handler = makePut10Handler(await prewarmed(dynamoDbStoreFromEnv()), 'dynamodb-put10');
