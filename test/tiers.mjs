/**
 * Which test files belong to the slow tier. `npm test` (the fast tier, vitest.config.ts) runs
 * everything else; `npm run test:full` adds these (vitest.slow.config.ts) and ALONE_TESTS.
 * A file is slow when it runs something whole end to end: loads, experiments or fault scenarios,
 * the real Artillery, the real `cdk synth` with CDK's template validation, CLIs started to see
 * what they load, a browser. Each costs seconds to minutes of both cores of a 2-core machine,
 * and the fast tier keeps a unit-level check of each module they drive. Keep this list the one
 * place that decides it. Plain ESM, so the Vitest configs import it with its extension (Vite's
 * native config loader wants one).
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
  // The real Artillery against the fake lab API (load-phases, idle-gap and artillery-cli check
  // the runner with Artillery injected, results.test.ts reads a real run's reports).
  'test/loadtest/artillery-only-summary.test.ts',
  'test/loadtest/artillery-run.test.ts',
  'test/loadtest/closed-loop.test.ts',
  // The real CLI with CDK's validation on the default flags (stacks and snapshots synthesize in
  // process; lab-bundles.test.ts reads the bundles of the fast tier's own synth).
  'test/infra/cdk-synth.test.ts',
  // Child Nodes that record every module a CLI loads (report/cli and tune/cli are tested in
  // process), and Chromium rendering report.html (results-report.test.ts checks the HTML).
  'test/report/cli-startup.test.ts',
  'test/report/html-chromium.test.ts',
  // The report CLI over a generated export of a million REPORT lines, with its heap bounded: a
  // scale check (the fast tier's report tests parse and summarize the same lines in small).
  'test/report/large-log.test.ts',
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
 * process-wide state that outlives it and that test/support/file-state.ts does not undo
 * (a target registered into the process's registries; vi.resetModules, which gives the files
 * after it second copies of modules that keep per-process state, the run directory's), or when
 * it measures its process (the heap, whose garbage from earlier files would count).
 * test/structure/tiers.test.ts checks the rules it can see in the source.
 * @type {readonly string[]}
 */
export const ISOLATED_TESTS = [
  'test/targets/throwaway/registration.test.ts',
  'test/tune/tune.test.ts',
  'test/lambda/dynamodb-handlers.test.ts',
  'test/lambda/qldb-handlers.test.ts',
  'test/report/cloudwatch-report.test.ts',
  'test/loadtest/lab-processor.test.ts',
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
  'test/lambda/dynamodb-workloads.test.ts',
  'test/local/function-host.test.ts',
  'test/experiments/experiment-cli.test.ts',
  'test/infra/stacks.test.ts',
  'test/local/memory-model.test.ts',
  'test/local/engines.test.ts',
  'test/infra/deploy-sequence.test.ts',
  'test/conformance/dsql.test.ts',
  'test/fuzz/dsql-front.test.ts',
  'test/local/qldb-endpoint.test.ts',
  'test/conformance/api-gateway.test.ts',
  'test/local/choose-targets.test.ts',
  'test/infra/cdk-nag.test.ts',
  'test/lambda/dsql-store.test.ts',
  'test/infra/snapshots.test.ts',
  'test/lab/http-fuzz.test.ts',
];
