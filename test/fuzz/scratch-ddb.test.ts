import { describeDynamoDbFuzz } from './dynamodb-fuzz';
describeDynamoDbFuzz({ seed: Number(process.env.S ?? 1), numRuns: Number(process.env.N ?? 300), tier: 'scratch' }, { maxDepth: 5, maxChain: 3 });
