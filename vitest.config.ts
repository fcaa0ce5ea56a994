import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    // The soak runs alone (npm run test:soak, vitest.soak.config.ts): it needs both cores.
    exclude: ['test/soak/**', 'node_modules/**'],
    globalSetup: ['test/support/global-setup.ts'],
    testTimeout: 30_000,
    hookTimeout: 300_000,
    // Two cores: synth, engines and load tests each want one; more workers only thrash.
    maxWorkers: 2,
  },
});
