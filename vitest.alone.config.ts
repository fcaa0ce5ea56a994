import { defineConfig } from 'vitest/config';
import { ALONE_TESTS } from './test/tiers.mjs';

/**
 * `npm run test:alone`: every experiment end to end and the 60 s soak, one file at a time with
 * nothing else running, so no other test competes for the two cores (test/tiers.mjs says why).
 */
export default defineConfig({
  test: {
    // Registers the target modules, as every CLI does.
    setupFiles: ['test/support/register-targets.ts'],
    include: [...ALONE_TESTS],
    globalSetup: ['test/support/global-setup.ts'],
    testTimeout: 300_000,
    hookTimeout: 300_000,
    maxWorkers: 1,
  },
});
