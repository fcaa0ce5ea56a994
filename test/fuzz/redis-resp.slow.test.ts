/** The slow tier's Redis fuzzing: a longer set of RESP inputs over TLS (redis-fuzz.ts says what each must do). */
import { describeRedisFuzz } from './redis-fuzz';
import { SLOW } from './support/fuzz-runs';

describeRedisFuzz(SLOW);
