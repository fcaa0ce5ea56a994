import { relative } from 'node:path';
import { defineConfig } from 'vitest/config';
import { BaseSequencer, type TestSpecification } from 'vitest/node';
import { ALONE_TESTS, LONG_TESTS, SLOW_TESTS } from './test/tiers.mjs';

/** The files test/tiers.mjs names as long first, in its order; then the rest as Vitest orders them. */
class LongFirst extends BaseSequencer {
  override async sort(files: TestSpecification[]): Promise<TestSpecification[]> {
    const rank = (spec: TestSpecification) => {
      const i = LONG_TESTS.indexOf(relative(this.ctx.config.root, spec.moduleId));
      return i === -1 ? LONG_TESTS.length : i;
    };
    // Array sort is stable: unlisted files keep Vitest's order.
    return (await super.sort(files)).sort((a, b) => rank(a) - rank(b));
  }
}

/** `npm test`: the fast tier (unit, handler, template and conformance tests). test/tiers.mjs names the rest. */
export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    exclude: [...SLOW_TESTS, ...ALONE_TESTS, 'node_modules/**'],
    globalSetup: ['test/support/global-setup.ts'],
    // A bound for a hung case, not a speed check: at load average 18 on two cores a handler
    // contract case ran past 30 s.
    testTimeout: 120_000,
    hookTimeout: 300_000,
    // Four on two cores: most files wait (engines, child processes, sockets, timers) more than
    // they compute; a quiet warm run took 110 s with 2 workers, 91 s with 3, 82 s with 4 and
    // 81 s with 6 (at the same CPU time), and 6 made the freezer's timing case flake.
    maxWorkers: 4,
    sequence: { sequencer: LongFirst },
  },
});
