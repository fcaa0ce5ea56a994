/**
 * Which test files belong to the slow tier. `npm test` (the fast tier, vitest.config.ts) runs
 * everything else; `npm run test:full` adds these (vitest.slow.config.ts) and the soak.
 * A file is slow when it runs whole loads, experiments or fault scenarios end to end: each takes
 * tens of seconds to minutes on a 2-core machine, and none of them is needed to check a change
 * to one module. Keep this list the one place that decides it. Plain ESM, so the Vitest configs import it with
 * its extension (Vite's native config loader wants one).
 * @type {readonly string[]}
 */
export const SLOW_TESTS = [
  'test/experiments/experiments-e2e.test.ts',
  'test/lab/load-e2e.test.ts',
  'test/lab/workloads-e2e.test.ts',
  'test/lab/engine-fault.test.ts',
  'test/lab/dsql-fault.test.ts',
  'test/lab/idle-connections.test.ts',
  'test/local/qldb-durability.test.ts',
  'test/local/engine-durability.test.ts',
  'test/local/ensure-synth.test.ts',
  'test/tune/local-tune-lab.test.ts',
  'test/conformance/local-cloud.test.ts',
  'test/lab/loopback.test.ts',
  'test/lab/interrupt-e2e.test.ts',
  'test/lab/qldb-restart.test.ts',
  'test/lab/engine-restart.test.ts',
  // A file that says so in its name: a folder of its own (a target module's) joins the slow tier
  // without an entry here.
  'test/**/*.slow.test.ts',
];

/**
 * The soak holds the machine for a minute and runs alone (vitest.soak.config.ts).
 * @type {readonly string[]}
 */
export const SOAK_TESTS = ['test/soak/**/*.test.ts'];
