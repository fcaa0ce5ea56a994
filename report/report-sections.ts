/**
 * The report as a list of sections of text, tables and plot slots: one description that
 * render-html.ts and render-markdown.ts both print, so the two say the same thing.
 */

import { comparisonSection } from './comparison-section';
import type { Plot, Section } from './page';
import type { LabReport } from './report-model';
import { experiment, insights, malformed, tuning } from './sections/inputs';
import { coldStarts, connections, functions, keepAlive, overTime } from './sections/lambda';
import { afterGap, ladders, overview } from './sections/run';
import { cost, targets } from './sections/targets';

export { ms, networkLine, usd, usdPerMillion } from './sections/format';

export const REPORT_TITLE = 'Serverless database latency report';

export function reportSections(report: LabReport, plots: readonly Plot[]): Section[] {
  return [
    experiment(report),
    // A load run's report opens with its answer: the targets x keep-alive comparison.
    comparisonSection(report, plots),
    overview(report),
    targets(report, plots),
    cost(report, plots),
    ladders(report, plots),
    keepAlive(report, plots),
    coldStarts(report, plots),
    connections(report, plots),
    afterGap(report),
    overTime(report, plots),
    functions(report, plots),
    insights(report),
    tuning(report, plots),
    malformed(report),
  ].filter((s): s is Section => s !== null);
}
