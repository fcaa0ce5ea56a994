/** The slow tier's DSQL front fuzzing: a longer set of SQL and wire inputs (dsql-fuzz.ts says what each must do). */
import { describeDsqlFuzz } from './dsql-fuzz';
import { SLOW } from './support/fuzz-runs';

describeDsqlFuzz(SLOW);
