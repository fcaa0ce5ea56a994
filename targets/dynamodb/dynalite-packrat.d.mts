/** The generated parser's source with a memo around every rule (dynalite-packrat.mjs). */
export declare function memoizedSource(source: string): string;
/** Replaces `parse` on each of dynalite's parser modules with its memoized twin. */
export declare function memoizeDynaliteParsers(): void;
