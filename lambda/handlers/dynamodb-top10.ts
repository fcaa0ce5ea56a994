import { dynamoDbStoreFromEnv } from '../shared/dynamodb-store';
import { makeTop10Handler } from '../shared/handlers';
import { prewarmed } from '../shared/prewarm';

export const handler = makeTop10Handler(await prewarmed(dynamoDbStoreFromEnv()), 'dynamodb-top10');
