/** The fast tier's DSQL front fuzzing: a small seed-fixed set of SQL and wire inputs (dsql-fuzz.ts says what each must do). */
import { describeDsqlFuzz } from './dsql-fuzz';
import { FAST } from './support/fuzz-runs';

describeDsqlFuzz(FAST);
