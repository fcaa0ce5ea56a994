/**
 * Load settings more than one module needs, in a module that imports nothing: the experiments'
 * --list estimates wall time from them without loading the load runner.
 */

/** The warm-up before an idle gap, s: long enough to start the environments the phase will use. */
export const WARMUP_S = 2;

/** In a local run's results folder: the engines' own output, which the terminal never shows. */
export const ENGINE_LOG_FILE = 'engine-logs.log';
