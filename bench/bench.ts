/**
 * `npm run bench`: the lab's own figures, printed, never asserted.
 *   1. keep-alive off/on ratio of database p50 and client p50, with the default network model
 *   2. the local host's overhead: client p50 through the host minus a direct SDK call's p50
 *      to the same engine through the same network model, where it goes, and this machine's
 *      floor for any host with separate environment processes (host-overhead.ts);
 *      `--only-overhead` runs just this section
 *   3. each bundle's init duration on the local host, on Lambda's Node, and what the bundle
 *      and its client add over an empty handler's init (init-over-empty.ts); `--only-init`
 *      runs just this section, `--node PATH` runs the environments on another Node,
 *      `--targets dynamodb,dsql` adds the other targets' bundles
 *   5. what the EMF metrics cost in bundle size, init (import) time and per invocation
 *   4. (--max-rate, or --only-max-rate) the highest arrival rate the machine sustains for
 *      60 s with 0 errors; takes several minutes
 *   6. every CLI's start-up: `--help` and a bad option against tsx on an empty file, in the
 *      same run (cli-startup.ts); `--only-startup` runs just this section, without the lab
 *   7. (--only-engines) the two local DynamoDB engines: start-up to the first answered request
 *      and PutItem/GetItem/Query p50/p99 on a kept-alive connection, taking turns
 *      (dynamodb-engines.ts); `--engine-rounds N` start-ups, `--engine-requests N` per operation
 *   9. (--peer serverless-offline, or --only-peer NAME) the lab's host beside a peer local Lambda
 *      host serving the same handler, interleaved (peer.ts): p50, p99, throughput with 1 and 4
 *      clients, start to ready, cold first request, CPU ms per request
 *  10. the SigV4 check per request (sigv4-verify.ts); `--only-sigv4` runs just this section
 *  11. (--only-persistence) what the run data costs: warm GETs' and creates' dbMs in a lab as it
 *      runs (every engine on files) against one with its engines in memory (persistence-cost.ts);
 *      `--targets` picks the targets (default dynamodb,qldb,redis,dsql), `--calls N` per target
 */

import { loadavg } from 'node:os';
import { parseArgs } from 'node:util';
import { describeCliError, runCli } from '../core/errors';
import { installInterruptHandler } from '../core/interrupt';
import type { RunningLab } from '../local/lab';
import type { LabClient } from './lab-client';

const USAGE = `Usage: npm run bench -- [options]

Prints the lab's own figures (never asserted). Sections: 1 keep-alive off/on, 2 host overhead,
3 init per bundle over an empty handler, 5 EMF metrics cost, 6 CLI start-up; 4 with --max-rate;
7 the local DynamoDB engines with --only-engines.

  --calls N              sequential GETs per variant in sections 1-2 (default 300)
  --inits N              fresh environments per bundle in section 3 (default 5)
  --targets LIST         add these targets' bundles to section 3 (e.g. dynamodb,dsql)
  --node PATH            run the environments on this Node (default: Lambda's, pinned)
  --only-init            section 3 only
  --only-overhead        section 2 only: the host's overhead over a direct SDK call and the relay floor
  --no-cgroups           run the lab's environments without cgroups (no memory-as-CPU, no freezer)
  --no-freeze            keep cgroups but never freeze an environment between invocations
  --only-startup         section 6 only, without the lab
  --startup-runs N       runs per CLI in section 6
  --max-rate             add section 4: the highest rate sustained for 60 s (several minutes)
  --only-max-rate        section 4 only
  --rates LIST           arrival rates section 4 tries
  --only-experiments     each experiment's --quick wall time against its 3-minute budget
  --only-qldb            section 8 only, without the lab
  --only-engines         section 7 only: the two local DynamoDB engines' start-up and per-request time
  --engine-rounds N      start-ups per engine in section 7 (default 5)
  --engine-requests N    timed requests per engine and operation in section 7 (default 2000)
  --peer NAME            add section 9: the lab's host beside NAME (serverless-offline), installed
                         on first use into .cache/bench-peer/
  --only-peer NAME       section 9 only, without the lab
  --only-sigv4           section 10 only: the API's SigV4 check per request
  --only-persistence     section 11 only: warm get and create dbMs with the engines' run data on
                         files (as the lab runs) against in memory, per target (--targets, --calls)
  --peer-requests N      sequential requests per host in section 9 (default 4000, as many again by 4 clients)
  --peer-rounds N        alternating rounds in section 9 (default 10)
  --peer-starts N        start-ups per host in section 9 (default 5)
  --peer-warmup N        warm-up requests per host in section 9, half sequential, half by 4 clients (default 2000)
  -h, --help             this text`;

const BENCH_OPTIONS = {
  help: { type: 'boolean', short: 'h' },
  'only-experiments': { type: 'boolean' },
  'only-qldb': { type: 'boolean' },
  'only-engines': { type: 'boolean' },
  'engine-rounds': { type: 'string' },
  'engine-requests': { type: 'string' },
  peer: { type: 'string' },
  'only-peer': { type: 'string' },
  'only-sigv4': { type: 'boolean' },
  'only-persistence': { type: 'boolean' },
  'peer-requests': { type: 'string' },
  'peer-rounds': { type: 'string' },
  'peer-starts': { type: 'string' },
  'peer-warmup': { type: 'string' },
  calls: { type: 'string' },
  'max-rate': { type: 'boolean' },
  'only-max-rate': { type: 'boolean' },
  'only-startup': { type: 'boolean' },
  targets: { type: 'string' },
  'startup-runs': { type: 'string' },
  inits: { type: 'string' },
  'only-init': { type: 'boolean' },
  'only-overhead': { type: 'boolean' },
  'no-cgroups': { type: 'boolean' },
  'no-freeze': { type: 'boolean' },
  node: { type: 'string' },
  rates: { type: 'string' },
} as const;

const { values } = parseArgsOrExit();

/** Bad options answer with one line and exit 2, as every CLI of the lab does; --help prints usage. */
function parseArgsOrExit() {
  try {
    const parsed = parseArgs({ options: BENCH_OPTIONS, allowPositionals: false });
    if (parsed.values.help) {
      console.log(USAGE);
      process.exit(0);
    }
    return parsed;
  } catch (e) {
    const { code, line } = describeCliError(e, { program: 'bench' });
    console.error(line);
    return process.exit(code);
  }
}

// The lab and every section's modules only now: --help and a bad option answer before any of
// them loads (the lab's modules are most of a second of CPU).
// Every target module joins the registry before the labels and lists are read.
const { loadTargetModules } = await import('../targets/registry');
await loadTargetModules();
const { EXPERIMENTS } = await import('../experiments/registry');
const { LOCAL_CALLER, startLab } = await import('../local/lab');
const { resolveLambdaNode } = await import('../local/runtime/lambda-node');
const { parseLambdaLog } = await import('../runs/lambda-log-parser');
const { ladderOf } = await import('../runs/latency-histogram');
const { cliStartup } = await import('./cli-startup');
const { dynamodbEngines, formatEngineFigures } = await import('./dynamodb-engines');
const { enginePersistence, formatPersistencePairs } = await import('./engine-persistence');
const { experimentBudgets, QUICK_BUDGET_S } = await import('./experiment-budgets');
const { hostOverhead } = await import('./host-overhead');
const { buildEmptyHandler, initOverEmpty, median } = await import('./init-over-empty');
const { instrumentationCost } = await import('./instrumentation-cost');
const { ipcWakeCost } = await import('./ipc-wake-cost');
const { LabClient: LabClientClass } = await import('./lab-client');
const { findMaxRate } = await import('./max-rate');
const { formatPeerFigures, PEER_PINS, peerComparison } = await import('./peer');
const { formatPersistenceRows, persistenceCost } = await import('./persistence-cost');
const { qldbStatementCost } = await import('./qldb-statements');
const { formatSigV4Cost, sigv4VerifyCost } = await import('./sigv4-verify');

const CALLS = Number(values.calls ?? 300);
const INITS = Number(values.inits ?? 5);
const fmt = (n: number | undefined) => (n === undefined ? '-' : n.toFixed(2));

function person(govId: string) {
  return { GovId: govId, FirstName: 'Bench', LastName: 'Mark', DOB: '1990-01-01', GovIdType: 'Passport' };
}

async function keepAliveRatio(client: LabClient) {
  const out: Record<string, { client: number[]; db: number[]; sign: number[] }> = {};
  for (const variant of ['on', 'off'] as const) {
    const base = `/dynamodb/keepalive-${variant}/person`;
    const id = `BENCH-${variant}-${Date.now()}`;
    const created = await client.request('POST', base, person(id));
    if (created.status !== 201)
      throw new Error(`create answered ${created.status}: ${JSON.stringify(created.body)}`);
    for (let i = 0; i < 20; i++) await client.request('GET', `${base}/${id}`); // warm-up
    const r = { client: [] as number[], db: [] as number[], sign: [] as number[] };
    for (let i = 0; i < CALLS; i++) {
      const res = await client.request('GET', `${base}/${id}`);
      if (res.status !== 200) throw new Error(`get answered ${res.status}`);
      r.client.push(res.ms);
      r.sign.push(res.signMs);
      r.db.push(res.body.timing?.dbMs ?? Number.NaN);
    }
    out[variant] = r;
  }
  return out;
}

async function overhead(lab: RunningLab, client: LabClient, reportDurations: number[]): Promise<void> {
  console.log(
    `\n2. local host overhead, ${CALLS} host GETs interleaved with the lab floor's and direct SDK GETs (keep-alive on, p50, ms)`,
  );
  const o = await hostOverhead(
    lab,
    client,
    LOCAL_CALLER,
    reportDurations,
    CALLS,
    resolveLambdaNode().path,
    !values['no-freeze'],
  );
  console.log(
    `   client through the host ${fmt(o.clientP50)}   direct SDK call ${fmt(o.directP50)}   overhead ${fmt(o.overheadP50)}`,
  );
  console.log(
    `   where: api + ipc ${fmt(o.apiAndIpcP50)}   handler outside its db call ${fmt(o.handlerP50)}   db call in the environment vs direct ${fmt(o.dbInEnvironmentP50)}`,
  );
  console.log(`   floor on this machine (HTTP + IPC relay, no work, same idle gaps): ${fmt(o.floorP50)}`);
  console.log(
    `   the floor with its child on Lambda's Node ${fmt(o.floorLambdaNodeP50)}, and with messages the size of the host's invoke and result ${fmt(o.floorSizedP50)}`,
  );
  // Why every hop and every line of the host's path costs more here than in a loop.
  const wake = await ipcWakeCost();
  console.log(
    `   one IPC round trip to a Lambda-Node process: ${wake.backToBackMs.toFixed(3)} back to back, ${wake.afterIdleMs.toFixed(3)} after 1 ms idle, ${wake.afterEvictionMs.toFixed(3)} when another process swept 16 MB in the gap, as the engines do during a database call (caches start cold)`,
  );
  const t = o.throttling;
  console.log(
    t
      ? `   CPU quota of the memory setting over the measured calls: throttled in ${t.throttled} of ${t.periods} periods, ${fmt(t.throttledMs)} ms in all (${fmt(t.throttledMs / CALLS)} ms per call)`
      : `   CPU quota: none (no cgroups)`,
  );
  // The goal's figure: both sides paired per call, the floor under the lab's conditions.
  console.log(
    `   the floor under the lab's conditions (a bare relay whose child is the lab's runtime worker running the GET function's own handler, on Lambda's Node, ${o.labFloorUnshared ? `without a CPU share: ${o.labFloorUnshared}` : `in a cgroup of its CPU share, ${o.labFloorThawP50 !== undefined ? 'frozen between calls' : 'never frozen'}`}), client - handler time: ${fmt(o.labFloorP50)}`,
  );
  const over = o.apiAndIpcP50 - o.labFloorP50;
  console.log(
    `   host overhead over that floor (api + ipc against it, each paired per call): ${fmt(over)} (goal <= 0.30; section 9 measures it without engines, beside the peer)`,
  );
  if (o.thawP50 !== undefined)
    console.log(
      `   thaw of a frozen environment (cgroup freezer write, which Lambda's sandbox pays too), p50: the host's ${fmt(o.thawP50)}, the lab floor's ${o.labFloorThawP50 !== undefined ? fmt(o.labFloorThawP50) : 'none (its child was not frozen)'}`,
    );
  console.log(
    `   (the overhead over the idle floor, unpaired, as the issue first measured it: ${fmt(o.overheadP50 - o.floorP50)}; the network model's draws make it about 0.2 ms noisy at 300 calls)`,
  );
}

async function initDurations(lab: RunningLab) {
  const node = resolveLambdaNode(values.node);
  if (node.warning) console.log(`   ${node.warning}`);
  console.log(
    `\n3. init per bundle on Node ${node.version}, ${INITS} fresh environments each, and over an empty handler's init (p50, ms)`,
  );
  const targets = lab.assembly.functions.flatMap((fn) => {
    const pool = lab.pools.get(fn.name);
    return pool ? [{ fn, env: pool.environment }] : [];
  });
  const rows = await initOverEmpty(targets, { runs: INITS, node, emptyDir: await buildEmptyHandler() });
  for (const r of rows) {
    const l = ladderOf(r.initMs);
    console.log(
      `   ${r.fn.padEnd(34)} init ${fmt(r.p50.init)}   empty handler ${fmt(r.p50.empty)}   bundle and client ${fmt(r.p50.overEmpty)}   (init max ${fmt(l?.max)})`,
    );
  }
  // Per target, the median over its functions of what bundle and client add (issue 22's goal
  // for DynamoDB: within 20 ms of the empty handler, on a quiet machine).
  const byTarget = new Map<string, number[]>();
  for (const r of rows) {
    const target = r.fn.split('-')[0];
    byTarget.set(target, [...(byTarget.get(target) ?? []), ...r.overEmptyMs]);
  }
  for (const [target, overEmpty] of byTarget) {
    console.log(
      `   ${`${target}, every function`.padEnd(34)} bundle and client over the empty handler: p50 ${fmt(median(overEmpty))} ms of ${overEmpty.length} pairs`,
    );
  }
}

function startup(): void {
  const runs = Number(values['startup-runs'] ?? 10);
  console.log(`\n6. CLI start-up, ${runs} interleaved runs each (p50, ms)`);
  const s = cliStartup(runs);
  console.log(`   tsx on an empty file          ${fmt(s.emptyP50Ms)}`);
  for (const r of s.rows) {
    console.log(
      `   ${`npm run ${r.name} -- --help`.padEnd(30)}${fmt(r.helpP50Ms)}   ${r.ratio.toFixed(2)}x   bad option ${fmt(r.badOptionP50Ms)}`,
    );
  }
}

async function engines(): Promise<void> {
  const rounds = Number(values['engine-rounds'] ?? 5);
  const requests = Number(values['engine-requests'] ?? 2000);
  console.log(
    `\n7. local DynamoDB engines (dynalite-plain: without the conformance layer): start-up to first answer (${rounds} each) and ${requests} requests per operation on one kept-alive connection, taking turns (ms)`,
  );
  const figures = await dynamodbEngines({ rounds, requests, log: (l) => console.log(`   ${l}`) });
  for (const line of formatEngineFigures(figures)) console.log(line);
}

async function main() {
  if (values['only-experiments']) {
    experiments();
    return;
  }
  if (values['only-startup']) {
    startup();
    return;
  }
  if (values['only-qldb']) {
    qldbStatements();
    return;
  }
  if (values['only-engines']) {
    await engines();
    return;
  }
  if (values['only-sigv4']) {
    await sigv4();
    return;
  }
  if (values['only-persistence']) {
    await persistence();
    return;
  }
  if (values['only-peer']) {
    await peer(values['only-peer']);
    return;
  }
  console.log(`Starting the local lab (defaults) ...`);
  const reportDurations: number[] = [];
  const lab = await startLab({
    port: 0,
    // Sections 1, 2 and 4 load DynamoDB; --targets adds other bundles to section 3's inits.
    context: values.targets ? { targets: values.targets } : {},
    // The switches split the host's overhead by what the lab models (printed in section 2).
    ...(values['no-cgroups'] ? { cgroups: false } : {}),
    ...(values['no-freeze'] ? { freeze: false } : {}),
    log: (l) => console.log(`  ${l}`),
    onFunctionLog: (_fn, line) => {
      const report = line.startsWith('REPORT ') ? parseLambdaLog(line).reports[0] : undefined;
      if (report) reportDurations.push(report.durationMs);
    },
  });
  try {
    const client = new LabClientClass(lab.url, LOCAL_CALLER, LOCAL_CALLER.region);
    if (values['only-max-rate']) {
      await maxRate(lab);
      return;
    }
    if (values['only-init']) {
      await initDurations(lab);
      return;
    }
    if (values['only-overhead']) {
      await overhead(lab, client, reportDurations);
      return;
    }
    console.log(`\n1. keep-alive off/on, ${CALLS} sequential GETs per variant (p50, ms)`);
    const ka = await keepAliveRatio(client);
    const p = (xs: number[]) => ladderOf(xs)?.p50 ?? Number.NaN;
    const [dbOn, dbOff, clOn, clOff] = [p(ka.on.db), p(ka.off.db), p(ka.on.client), p(ka.off.client)];
    console.log(
      `   database time   on ${fmt(dbOn)}   off ${fmt(dbOff)}   ratio ${(dbOff / dbOn).toFixed(2)}x`,
    );
    console.log(
      `   client latency  on ${fmt(clOn)}   off ${fmt(clOff)}   ratio ${(clOff / clOn).toFixed(2)}x`,
    );

    await overhead(lab, client, reportDurations);
    console.log(`   (SigV4 signing on the client, excluded above: p50 ${fmt(p(ka.on.sign))} ms)`);

    await initDurations(lab);
    console.log(`\n5. EMF metrics (Powertools) cost, dynamodb-get bundle, ${INITS * 4} fresh imports each`);
    const cost = await instrumentationCost(INITS * 4);
    console.log(
      `   bundle ${(cost.bytes.without / 1024).toFixed(1)} KB -> ${(cost.bytes.with / 1024).toFixed(1)} KB minified; import p50 ${fmt(cost.importP50Ms.without)} -> ${fmt(cost.importP50Ms.with)} ms; per invocation ${(cost.perInvocationMs * 1000).toFixed(1)} µs`,
    );
    if (values['max-rate']) await maxRate(lab);
  } finally {
    await lab.stop();
  }
  startup();
  qldbStatements();
  if (values.peer) await peer(values.peer);
  await sigv4();
}

async function persistence(): Promise<void> {
  const targets = (values.targets ?? 'dynamodb,qldb,redis,dsql').split(',').map((t) => t.trim());
  const rounds = 10;
  console.log(
    `\n11. what the run data costs: ${CALLS} warm GETs and creates per target in each of two labs, the lab as it runs (engines on files) and one with its engines in memory, in ${rounds} alternating rounds (handler dbMs p50, ms; on - off, and as a share of off)`,
  );
  const load = loadavg()[0];
  const rows = await persistenceCost({ targets, calls: CALLS, rounds, log: (l) => console.log(`   ${l}`) });
  for (const line of formatPersistenceRows(rows)) console.log(line);
  // The DynamoDB engines alone, straight to the engine: the files' own cost, without the model's draws.
  const requests = Number(values['engine-requests'] ?? 2000);
  console.log(
    `   the DynamoDB engines alone, in memory and on files in the run data, ${requests} requests per operation on one kept-alive connection, taking turns (ms):`,
  );
  const engineFigures = await dynamodbEngines({
    kinds: ['dynalite', 'dynalite-files', 'dynamodb-local', 'dynamodb-local-files'],
    rounds: 0,
    requests,
    log: (l) => console.log(`   ${l}`),
  });
  for (const line of formatEngineFigures(engineFigures)) console.log(line);
  console.log(
    `   the other engines alone, in memory and on files as the run data keeps them, ${requests} requests each (QLDB: a quarter, as transactions), taking turns (p50, ms; files - memory):`,
  );
  const pairs = await enginePersistence(requests, (l) => console.log(`   ${l}`));
  for (const line of formatPersistencePairs(pairs)) console.log(line);
  console.log(
    `   load average (1 min) ${load.toFixed(1)} at the start, ${loadavg()[0].toFixed(1)} at the end`,
  );
}

async function sigv4(): Promise<void> {
  console.log("\n10. the API's SigV4 check per request (a signed POST, 5000 x 5 rounds, median)");
  console.log(`   ${formatSigV4Cost(await sigv4VerifyCost(5000))}`);
}

async function peer(name: string): Promise<void> {
  const requests = Number(values['peer-requests'] ?? 4000);
  const rounds = Number(values['peer-rounds'] ?? 10);
  const starts = Number(values['peer-starts'] ?? 5);
  const warmup = Number(values['peer-warmup'] ?? 2000);
  console.log(
    `\n9. the lab's host beside ${name} (serverless ${PEER_PINS.serverless}, serverless-offline ${PEER_PINS['serverless-offline']}): one handler as a REST route, ${starts} start-ups each, ${warmup} warm-up requests each, then ${requests} sequential + ${requests} 4-client requests each in ${rounds} alternating rounds (lab: IAM on, no cgroups)`,
  );
  const load = loadavg()[0];
  const rows = await peerComparison(name, {
    requests,
    rounds,
    starts,
    warmup,
    log: (l) => console.log(`   ${l}`),
  });
  for (const line of formatPeerFigures(rows)) console.log(line);
  // The floor under every figure above: what a hop to a process that slept costs here.
  const wake = await ipcWakeCost();
  console.log(
    `   IPC round trip to a Lambda-Node process: ${wake.backToBackMs.toFixed(3)} ms back to back, ${wake.afterIdleMs.toFixed(3)} ms after 1 ms idle, ${wake.afterEvictionMs.toFixed(3)} ms when another process swept 16 MB in the gap (a request through the lab makes 4 hops)`,
  );
  console.log(
    `   load average (1 min) ${load.toFixed(1)} at the start, ${loadavg()[0].toFixed(1)} at the end`,
  );
}

function qldbStatements(): void {
  console.log(
    '\n8. local QLDB engine, parse (uncached) and execute per statement, 100 indexed people (p50, µs)',
  );
  for (const r of qldbStatementCost()) {
    console.log(
      `   ${r.statement.padEnd(48)} parse ${r.parseUs.toFixed(1).padStart(5)}   execute ${r.executeUs.toFixed(1).padStart(6)}`,
    );
  }
}

async function maxRate(lab: RunningLab) {
  console.log('\n4. highest arrival rate sustained for 60 s with 0 errors (create, keep-alive on)');
  const { best } = await findMaxRate(lab, {
    probeS: 15,
    holdS: 60,
    rates: values.rates ? values.rates.split(',').map(Number) : [25, 50, 100, 200, 300, 400, 500, 600, 800],
    log: (s) =>
      console.log(
        `   ${String(s.rate).padStart(4)}/s for ${s.durationS} s: ${s.run.requests} requests, ${s.run.errors} errors, p50 ${fmt(s.run.latencyMs?.p50)} p99 ${fmt(s.run.latencyMs?.p99)} ms -> ${s.sustained ? 'sustained' : 'not sustained'}`,
      ),
  });
  console.log(
    best ? `   highest sustained: ${best.rate}/s for ${best.durationS} s` : '   no rate was sustained',
  );
}

function experiments() {
  console.log(`\n7. each experiment's --quick wall time (budget ${QUICK_BUDGET_S} s)`);
  experimentBudgets(
    EXPERIMENTS.map((e) => e.name),
    (r) =>
      console.log(
        `   ${r.name.padEnd(20)}${r.wallS.toFixed(1).padStart(7)} s   ${r.exitCode === 0 ? (r.wallS <= QUICK_BUDGET_S ? 'within budget' : 'OVER BUDGET') : `failed (exit ${r.exitCode})`}`,
      ),
  );
}

runCli(
  async () => {
    // Ctrl-C, SIGTERM or SIGHUP stop the lab (its stop is registered by startLab) and exit with
    // the signal's code; a second Ctrl-C quits at once, ending its processes (core/interrupt.ts).
    installInterruptHandler();
    await main();
    return undefined;
  },
  { program: 'bench' },
);
