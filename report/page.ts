/**
 * The report page's shapes, a leaf every part of report/ may import: a plot (its spec and its
 * rendered SVG) and the sections of text, tables and plot slots that render-html.ts and
 * render-markdown.ts print. Types only, so importing it loads nothing.
 */
import type { TopLevelSpec } from 'vega-lite';

export type PlotSection =
  | 'comparison'
  | 'targets'
  | 'ladders'
  | 'keep-alive'
  | 'cold-starts'
  | 'connections'
  | 'over-time'
  | 'functions'
  | 'tuning'
  | 'cost';

export interface Plot {
  /** unique, usable as an HTML id: `plot-<id>` */
  readonly id: string;
  readonly section: PlotSection;
  readonly title: string;
  readonly caption: string;
  readonly svg: string;
}

export interface PlotSpec {
  readonly id: string;
  readonly section: PlotSection;
  readonly title: string;
  readonly caption: string;
  readonly spec: TopLevelSpec;
}

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
