import { relative } from 'node:path';
import { defineConfig } from 'vitest/config';
import { BaseSequencer, type TestSpecification } from 'vitest/node';
import { ALONE_TESTS, ISOLATED_TESTS, LONG_TESTS, SLOW_TESTS } from './test/tiers.mjs';

/**
 * The isolated files first, then the files test/tiers.mjs names as long, in its order; then the
 * rest as Vitest orders them. Isolated files go first because Vitest keeps a shared worker only
 * while the next file in the queue may share it: one isolated file queued between shared ones
 * would end a worker and its loaded modules.
 */
class LongFirst extends BaseSequencer {
  override async sort(files: TestSpecification[]): Promise<TestSpecification[]> {
    const rank = (spec: TestSpecification) => {
      const path = relative(this.ctx.config.root, spec.moduleId);
      if (ISOLATED_TESTS.includes(path)) return -1;
      const i = LONG_TESTS.indexOf(path);
      return i === -1 ? LONG_TESTS.length : i;
    };
    // Array sort is stable: unlisted files keep Vitest's order.
    return (await super.sort(files)).sort((a, b) => rank(a) - rank(b));
  }
}

const timeouts = {
  // A bound for a hung case, not a speed check: at load average 18 on two cores a handler
  // contract case ran past 30 s.
  testTimeout: 120_000,
  hookTimeout: 300_000,
};
const notFast = [...SLOW_TESTS, ...ALONE_TESTS, 'node_modules/**'];

/**
 * `npm test`: the fast tier (unit, handler, template and conformance tests). test/tiers.mjs names
 * the rest. Two projects of one run: most files share worker processes (isolate: false), several
 * files one after another in each, so a file pays for its own imports and not for a process and
 * every module again; the few test/tiers.mjs names in ISOLATED_TESTS get a process each.
 */
export default defineConfig({
  test: {
    // Once for the run, in the root project; both projects read what it provides.
    globalSetup: ['test/support/global-setup.ts'],
    // Four on two cores: most files wait (engines, child processes, sockets, timers) more than
    // they compute, and two or three workers left a core idle for much of the run; more than
    // four made the freezer's timing case flake.
    maxWorkers: 4,
    sequence: { sequencer: LongFirst },
    // Transformed modules kept on disk for the next run (node_modules/.experimental-vitest-cache,
    // keyed by each file's content and the config; npm ci starts it afresh): a fresh clone
    // transforms everything, a rerun only what changed.
    experimental: { fsModuleCache: true },
    projects: [
      {
        test: {
          name: 'fast',
          include: ['test/**/*.test.ts'],
          exclude: [...notFast, ...ISOLATED_TESTS],
          isolate: false,
          // Registers the target modules; undoes a file's changes to process.env and the working
          // directory when it ends.
          setupFiles: ['test/support/register-targets.ts', 'test/support/file-state.ts'],
          ...timeouts,
        },
      },
      {
        test: {
          name: 'fast-isolated',
          include: [...ISOLATED_TESTS],
          exclude: notFast,
          setupFiles: ['test/support/register-targets.ts'],
          ...timeouts,
        },
      },
    ],
  },
});
