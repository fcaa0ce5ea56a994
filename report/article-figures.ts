/**
 * What the source articles measured, in one place: the report prints these beside the lab's
 * own numbers, and report.json carries them so a reader sees what was compared with what.
 */

/** What the articles measured for one DynamoDB call: 33 ms without keep-alive, 10 ms with it. */
export const KEEP_ALIVE_REFERENCE = {
  offMs: 33,
  onMs: 10,
  ratio: 3.3,
  source: 'the DynamoDB HTTP keep-alive article: 33 ms -> 10 ms per call',
} as const;

/**
 * The first article's comparison: QLDB ~40 ms per call against single-digit ms for DynamoDB.
 * `figures` is what the target comparison prints beside each target's rows.
 */
export const TARGET_REFERENCE: {
  readonly source: string;
  readonly figures: Readonly<Record<string, string>>;
} = {
  source: 'the first article measured QLDB at ~40 ms per call against single-digit ms for DynamoDB',
  figures: { dynamodb: 'single-digit ms', qldb: '~40 ms' },
};

/** The first article's figure for a target, or null when it did not measure it. */
export function targetFigure(target: string): string | null {
  return Object.hasOwn(TARGET_REFERENCE.figures, target) ? TARGET_REFERENCE.figures[target] : null;
}
