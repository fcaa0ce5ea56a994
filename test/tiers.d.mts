export declare const SLOW_TESTS: readonly string[];
export declare const SOAK_TESTS: readonly string[];
export declare const LONG_TESTS: readonly string[];
