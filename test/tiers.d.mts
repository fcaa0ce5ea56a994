export declare const SLOW_TESTS: readonly string[];
export declare const ALONE_TESTS: readonly string[];
export declare const ISOLATED_TESTS: readonly string[];
export declare const LONG_TESTS: readonly string[];
