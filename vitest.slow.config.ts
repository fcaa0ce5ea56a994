import { defineConfig } from 'vitest/config';
import { SLOW_TESTS } from './test/tiers.mjs';

/** The slow tier of `npm run test:full`: whole loads, faults, restarts and durability. */
export default defineConfig({
  test: {
    // Registers the target modules, as every CLI does.
    setupFiles: ['test/support/register-targets.ts'],
    include: [...SLOW_TESTS],
    globalSetup: ['test/support/global-setup.ts'],
    testTimeout: 30_000,
    hookTimeout: 300_000,
    // Two at a time on two cores; the experiments, whose cold starts suffer from a second lab
    // beside them, run alone afterwards (vitest.alone.config.ts).
    maxWorkers: 2,
  },
});
