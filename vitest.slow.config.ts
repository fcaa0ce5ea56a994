import { defineConfig } from 'vitest/config';
import { SLOW_TESTS } from './test/tiers.mjs';

/** The slow tier of `npm run test:full`: whole loads, experiments, faults, restarts and durability. */
export default defineConfig({
  test: {
    include: [...SLOW_TESTS],
    globalSetup: ['test/support/global-setup.ts'],
    testTimeout: 30_000,
    hookTimeout: 300_000,
    // One file at a time: two labs at once on two cores starve each other's cold starts (a DSQL
    // connect past its 1 s timeout failed an experiment's run once); the experiments' file
    // decides the tier's time either way.
    maxWorkers: 1,
  },
});
