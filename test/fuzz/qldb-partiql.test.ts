/** The fast tier's QLDB fuzzing: a small seed-fixed set (qldb-fuzz.ts says what each input must do). */
import { describeQldbFuzz } from './qldb-fuzz';
import { FAST } from './support/fuzz-runs';

describeQldbFuzz(FAST, { maxDepth: 3 });
