/** The fast tier's Redis fuzzing: a small seed-fixed set of RESP inputs over TLS (redis-fuzz.ts says what each must do). */
import { describeRedisFuzz } from './redis-fuzz';
import { FAST } from './support/fuzz-runs';

describeRedisFuzz(FAST);
