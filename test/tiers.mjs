/**
 * Which test files belong to the slow tier. `npm test` (the fast tier, vitest.config.ts) runs
 * everything else; `npm run test:full` adds these (vitest.slow.config.ts) and ALONE_TESTS.
 * A file is slow when it runs whole loads, experiments or fault scenarios end to end: each takes
 * tens of seconds to minutes on a 2-core machine, and none of them is needed to check a change
 * to one module. Keep this list the one place that decides it. Plain ESM, so the Vitest configs import it with
 * its extension (Vite's native config loader wants one).
 * @type {readonly string[]}
 */
export const SLOW_TESTS = [
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
 * The files that run alone, one at a time with nothing beside them (vitest.alone.config.ts,
 * `npm run test:alone`): every experiment end to end, whose cold starts time out when a second
 * lab shares the two cores (a DSQL connect past its 1 s bound failed a run once), and the soak,
 * which holds the machine for a minute. The slow tier runs two files at a time.
 * @type {readonly string[]}
 */
export const ALONE_TESTS = ['test/experiments/experiments-e2e.test.ts', 'test/soak/**/*.test.ts'];

/**
 * The fast-tier files that get a worker process of their own. The rest share theirs, several
 * files to a worker one after another (vitest.config.ts): each file's set-up then costs its own
 * imports only, not a process and every module again. A file belongs here when it changes
 * process-wide state that outlives it and that test/support/file-state.ts does not undo:
 * a target registered into the process's registries, or vi.resetModules, which gives the files
 * after it second copies of modules that keep per-process state (the run directory's).
 * @type {readonly string[]}
 */
export const ISOLATED_TESTS = [
  'test/targets/throwaway/registration.test.ts',
  'test/lambda/dynamodb-handlers.test.ts',
  'test/lambda/qldb-handlers.test.ts',
];

/**
 * The fast tier's longest files, longest first (seconds each on a loaded 2-core machine,
 * imports and hooks included). Vitest starts them before every other file (vitest.config.ts's
 * sequencer), so no long file starts last beside an idle worker; a fresh clone has no timings
 * of its own for Vitest to order by. The few that wait for global-setup.ts's background synth
 * or client install (memory-model, the conformance files) come after the first ones, so what
 * they wait for is done when they start. Re-measure with
 * `npm test -- --reporter=default --reporter=json --outputFile.json=.cache/test-fast.json`.
 * @type {readonly string[]}
 */
export const LONG_TESTS = [
  'test/infra/cdk-synth.test.ts',
  'test/loadtest/artillery-run.test.ts',
  'test/loadtest/artillery-only-summary.test.ts',
  'test/lambda/dynamodb-workloads.test.ts',
  'test/local/function-host.test.ts',
  'test/report/html-chromium.test.ts',
  'test/experiments/experiment-cli.test.ts',
  'test/infra/stacks.test.ts',
  'test/local/memory-model.test.ts',
  'test/local/engines.test.ts',
  'test/report/cli-startup.test.ts',
  'test/infra/deploy-sequence.test.ts',
  'test/conformance/dsql.test.ts',
  'test/fuzz/dsql-front.test.ts',
  'test/local/qldb-endpoint.test.ts',
  'test/conformance/api-gateway.test.ts',
  'test/local/choose-targets.test.ts',
  'test/infra/cdk-nag.test.ts',
  'test/lambda/dsql-store.test.ts',
  'test/loadtest/closed-loop.test.ts',
  'test/infra/snapshots.test.ts',
  'test/report/large-log.test.ts',
  'test/lab/http-fuzz.test.ts',
];
