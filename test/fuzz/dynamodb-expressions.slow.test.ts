/** The slow tier's DynamoDB fuzzing: a longer set, deeper trees (dynamodb-fuzz.ts says what each input must do). */
import { describeDynamoDbFuzz } from './dynamodb-fuzz';
import { SLOW } from './support/fuzz-runs';

describeDynamoDbFuzz(SLOW, { maxDepth: 8, maxChain: 40 });
