/**
 * The report as a list of sections of text, tables and plot slots: one description that
 * render-html.ts and render-markdown.ts both print, so the two say the same thing.
 */

import { comparisonSection } from './comparison-section';
import type { Plot } from './plots';
import type { LabReport } from './report-model';
import { experiment, insights, malformed, tuning } from './sections/inputs';
import { coldStarts, connections, functions, keepAlive, overTime } from './sections/lambda';
import { afterGap, ladders, overview } from './sections/run';
import { cost, targets } from './sections/targets';

export { ms, networkLine, usd, usdPerMillion } from './sections/format';

export interface Column {
  readonly title: string;
  /** right-aligned */
  readonly numeric?: boolean;
  /** long free text: may wrap */
  readonly wrap?: boolean;
}

export type Block =
  | { readonly kind: 'heading'; readonly text: string }
  | { readonly kind: 'text'; readonly text: string }
  /** a line the reader must not miss: malformed input, warnings */
  | { readonly kind: 'notice'; readonly text: string }
  | { readonly kind: 'link'; readonly label: string; readonly href: string }
  | { readonly kind: 'code'; readonly text: string }
  | {
      readonly kind: 'table';
      readonly columns: readonly Column[];
      readonly rows: readonly (readonly string[])[];
    }
  | { readonly kind: 'plot'; readonly plot: Plot };

export interface Section {
  readonly id: string;
  readonly title: string;
  readonly blocks: readonly Block[];
}

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
