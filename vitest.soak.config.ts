import { defineConfig } from 'vitest/config';
import { SOAK_TESTS } from './test/tiers.mjs';

/** `npm run test:soak`: the 60 s soak, alone, so no other test competes for the two cores. */
export default defineConfig({
  test: {
    include: [...SOAK_TESTS],
    globalSetup: ['test/support/global-setup.ts'],
    testTimeout: 300_000,
    hookTimeout: 300_000,
    maxWorkers: 1,
  },
});
