/** The slow tier's QLDB fuzzing: a longer set, deeper expressions (qldb-fuzz.ts says what each input must do). */
import { describeQldbFuzz } from './qldb-fuzz';
import { SLOW } from './support/fuzz-runs';

describeQldbFuzz(SLOW, { maxDepth: 5 });
