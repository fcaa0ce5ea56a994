/** A StepView for experiment tests: a step that ran and left nothing, or what `over` gives. */
import type { StepPlan, StepView } from '../../experiments/types';

export function stepView(plan: StepPlan, over: Partial<StepView> = {}): StepView {
  return {
    plan,
    wallS: 1,
    rows: [],
    lab: null,
    calls: () => [],
    ladder: () => null,
    rungs: () => [],
    reportDurations: () => [],
    layer: () => null,
    row: () => undefined,
    group: () => undefined,
    ...over,
  };
}
