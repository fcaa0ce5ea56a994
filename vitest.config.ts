import { defineConfig } from 'vitest/config';
import { SLOW_TESTS, SOAK_TESTS } from './test/tiers.mjs';

/** `npm test`: the fast tier (unit, handler, template and conformance tests). test/tiers.mjs names the rest. */
export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    exclude: [...SLOW_TESTS, ...SOAK_TESTS, 'node_modules/**'],
    globalSetup: ['test/support/global-setup.ts'],
    testTimeout: 30_000,
    hookTimeout: 300_000,
    // Two cores: synth, engines and load tests each want one; more workers only thrash.
    maxWorkers: 2,
  },
});
