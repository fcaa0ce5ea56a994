import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    globalSetup: ['test/support/global-setup.ts'],
    testTimeout: 30_000,
    hookTimeout: 300_000,
    // Two cores: synth, engines and load tests each want one; more workers only thrash.
    maxWorkers: 2,
  },
});
