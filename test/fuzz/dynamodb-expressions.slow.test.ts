/**
 * The slow tier's DynamoDB fuzzing: a longer set, deeper trees (dynamodb-fuzz.ts says what each
 * input must do). Three times the slow set: an input here costs milliseconds.
 */
import { describeDynamoDbFuzz } from './dynamodb-fuzz';
import { SLOW } from './support/fuzz-runs';

describeDynamoDbFuzz({ ...SLOW, numRuns: 3 * SLOW.numRuns }, { maxDepth: 8, maxChain: 40 });
