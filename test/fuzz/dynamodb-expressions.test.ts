/** The fast tier's DynamoDB fuzzing: a small seed-fixed set (dynamodb-fuzz.ts says what each input must do). */
import { describeDynamoDbFuzz } from './dynamodb-fuzz';
import { FAST } from './support/fuzz-runs';

describeDynamoDbFuzz(FAST, { maxDepth: 4, maxChain: 12 });
