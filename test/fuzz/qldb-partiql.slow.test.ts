/**
 * The slow tier's QLDB fuzzing: a longer set, deeper expressions (qldb-fuzz.ts says what each
 * input must do). Three times the slow set: an input here costs milliseconds.
 */
import { describeQldbFuzz } from './qldb-fuzz';
import { SLOW } from './support/fuzz-runs';

describeQldbFuzz({ ...SLOW, numRuns: 3 * SLOW.numRuns }, { maxDepth: 5 });
