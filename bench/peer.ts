/**
 * `npm run bench -- --peer serverless-offline`: the lab's host beside the most-used local Lambda
 * host for Node that needs no Docker, serving the same handler as a REST (v1) route. Printed,
 * never asserted.
 *
 * The peer is installed on demand into .cache/bench-peer/ (never a project dependency):
 * serverless 3.40.0 (v3 runs offline without a login; v4 asks for one) with
 * serverless-offline 13.10.1, the pair the issue measured.
 *
 * Each host runs as its own process. Start-up rounds alternate (spawn to the port accepting,
 * then the cold first request); the warm figures come from rounds that alternate hosts too, so
 * machine load falls on both alike: sequential requests on one kept-alive connection (p50, p99,
 * 1-client throughput), then 4 clients on 4 connections (throughput). CPU ms per request is read
 * from /proc for the server process, and for the lab also for its environment processes (the
 * peer runs its handlers in worker threads of its one process). A relay floor (relay-floor-host.mjs:
 * the same hops, no work) takes part in the warm rounds, so the lab's host overhead over the
 * floor is measured under the same load.
 */
import { type ChildProcess, spawn, spawnSync } from 'node:child_process';
import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import http from 'node:http';
import net from 'node:net';
import { availableParallelism, tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { signRequest } from '../local/auth/sigv4';
import { freePort } from '../local/engines/free-port';
import { defaultLambdaNode } from '../local/host/execution-environment';
import { LOCAL_CALLER } from '../local/lab-defaults';
import { ladderOf } from '../runs/latency-histogram';

export const PEER_PINS = { serverless: '3.40.0', 'serverless-offline': '13.10.1' } as const;
const ROOT = join(import.meta.dirname, '..');
const HANDLER = `export const handler = async () => ({ statusCode: 200, body: '{"message":"hello"}' });\n`;

export interface PeerOptions {
  /** Sequential requests per host in the warm rounds (split over the rounds). */
  readonly requests: number;
  readonly rounds: number;
  /** Start-ups per host. */
  readonly starts: number;
  /**
   * Warm-up requests per host before the measured rounds, half sequential and half by 4 clients
   * (each of the 4 clients a quarter of that half).
   */
  readonly warmup: number;
  readonly log: (line: string) => void;
}

export interface HostFigures {
  readonly name: string;
  readonly startToReadyMs: number;
  readonly coldFirstMs: number;
  readonly p50: number;
  readonly p99: number;
  readonly rps1: number;
  readonly rps4: number;
  /** CPU ms per request of the server process, and of the processes it spawned (lab environments). */
  readonly cpuServerMs: number;
  readonly cpuChildrenMs: number;
  /**
   * CPU ms per request in the 4-client phase alone: the host's processes (server and what it
   * spawned), and the bench's own client. What a CPU-bound 4-client run can reach follows.
   */
  readonly cpu4HostMs: number;
  readonly cpu4ClientMs: number;
}

/** Installs the pinned peer into its cache folder unless it is there; returns the folder. */
export function ensurePeer(log: (line: string) => void): string {
  const dir = join(
    ROOT,
    '.cache',
    'bench-peer',
    `sls${PEER_PINS.serverless}-offline${PEER_PINS['serverless-offline']}`,
  );
  if (existsSync(join(dir, 'node_modules', 'serverless-offline', 'package.json'))) return dir;
  mkdirSync(dir, { recursive: true });
  writeFileSync(
    join(dir, 'package.json'),
    `${JSON.stringify({ name: 'bench-peer', private: true, dependencies: PEER_PINS }, null, 2)}\n`,
  );
  log(
    `installing serverless ${PEER_PINS.serverless} + serverless-offline ${PEER_PINS['serverless-offline']} into ${dir} (once) ...`,
  );
  const npm = process.platform === 'win32' ? 'npm.cmd' : 'npm';
  // No install scripts: the peer runs without them, and the lab's own npm ci runs none either.
  const r =
    spawnSync(npm, ['install', '--no-audit', '--no-fund', '--ignore-scripts', '--loglevel=error'], {
      cwd: dir,
      stdio: 'inherit',
    }).status ?? 1;
  if (r !== 0) throw new Error(`npm install of the peer failed (exit ${r}) in ${dir}`);
  return dir;
}

/** CPU time (user + system) of a process, ms, from /proc (0 where /proc is missing). */
function cpuMs(pid: number | undefined): number {
  if (pid === undefined) return 0;
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const f = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    // Fields 14 and 15 (utime, stime) in clock ticks; Linux reports USER_HZ = 100.
    return (Number(f[11]) + Number(f[12])) * 10;
  } catch {
    return 0;
  }
}

function childPids(pid: number | undefined): number[] {
  if (pid === undefined) return [];
  try {
    return readdirSync(`/proc/${pid}/task`).flatMap((t) =>
      readFileSync(`/proc/${pid}/task/${t}/children`, 'utf8').trim().split(/\s+/).filter(Boolean).map(Number),
    );
  } catch {
    return [];
  }
}

interface Host {
  readonly name: string;
  readonly url: string;
  headers: Record<string, string>;
  /** Set by start(); undefined before it. */
  proc?: ChildProcess;
  start(): Promise<{ readyMs: number }>;
  stop(): Promise<void>;
}

function waitForPort(port: number, proc: ChildProcess, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  return new Promise((resolve, reject) => {
    const attempt = () => {
      if (proc.exitCode !== null) return reject(new Error(`exited ${proc.exitCode} before listening`));
      const s = net.connect(port, '127.0.0.1');
      s.once('connect', () => {
        s.destroy();
        resolve();
      });
      s.once('error', () => {
        s.destroy();
        if (Date.now() > deadline) reject(new Error(`port ${port} not listening within ${timeoutMs} ms`));
        else setTimeout(attempt, 5);
      });
    };
    attempt();
  });
}

/**
 * Reads what a host prints (the peer logs every request; its cost stays in its figures) and
 * keeps the last lines, shown if the host exits before it listens.
 */
function drain(proc: ChildProcess): void {
  const tail: string[] = [];
  const keep = (d: Buffer) => {
    tail.push(d.toString('utf8'));
    if (tail.length > 20) tail.shift();
  };
  proc.stdout?.on('data', keep);
  proc.stderr?.on('data', keep);
  proc.once('exit', (code) => {
    if (code !== 0 && code !== null) process.stderr.write(`host exited ${code}:\n${tail.join('')}\n`);
  });
}

function stopProcess(proc: ChildProcess | undefined): Promise<void> {
  if (!proc || proc.exitCode !== null || proc.signalCode !== null) return Promise.resolve();
  return new Promise((resolve) => {
    const kill = setTimeout(() => proc.kill('SIGKILL'), 5000);
    proc.once('exit', () => {
      clearTimeout(kill);
      resolve();
    });
    proc.kill('SIGTERM');
  });
}

async function labHost(handlerDir: string, logFile: string): Promise<Host> {
  const port = await freePort();
  const url = `http://127.0.0.1:${port}/lab/hello`;
  const host: Host = {
    name: 'lab',
    url,
    headers: {},
    async start() {
      const t = performance.now();
      host.proc = spawn(
        process.execPath,
        ['--import', 'tsx', join(import.meta.dirname, 'peer-lab-host.ts'), handlerDir, String(port), logFile],
        { cwd: ROOT, stdio: ['ignore', 'pipe', 'pipe'] },
      );
      drain(host.proc);
      await waitForPort(port, host.proc, 30_000);
      return { readyMs: performance.now() - t };
    },
    stop: () => stopProcess(host.proc),
  };
  // Signed once: the same GET, replayed within SigV4's 15-minute window, so the client's signing
  // is not in the figures (the peer's route has no authorization at all).
  host.headers = await signRequest({ method: 'GET', url, headers: {} }, LOCAL_CALLER, LOCAL_CALLER.region);
  return host;
}

/** The relay floor (relay-floor-host.mjs): the lab's hops with none of its work. */
async function floorHost(): Promise<Host> {
  const port = await freePort();
  const host: Host = {
    name: 'relay floor',
    url: `http://127.0.0.1:${port}/lab/hello`,
    headers: {},
    async start() {
      const t = performance.now();
      // Plain node, no loader; its environment process on Lambda's Node, as the lab's are.
      host.proc = spawn(
        process.execPath,
        [join(import.meta.dirname, 'relay-floor-host.mjs'), String(port), defaultLambdaNode().path],
        { cwd: ROOT, stdio: ['ignore', 'pipe', 'pipe'] },
      );
      drain(host.proc);
      await waitForPort(port, host.proc, 30_000);
      return { readyMs: performance.now() - t };
    },
    stop: () => stopProcess(host.proc),
  };
  return host;
}

async function peerHost(peerDir: string, workDir: string): Promise<Host> {
  const [port, lambdaPort] = [await freePort(), await freePort()];
  writeFileSync(
    join(workDir, 'serverless.yml'),
    [
      'service: bench-peer',
      "frameworkVersion: '3'",
      'provider: { name: aws, runtime: nodejs20.x, region: us-east-1 }',
      'plugins: [serverless-offline]',
      'functions:',
      '  hello:',
      '    handler: handler.handler',
      '    events: [{ http: { method: get, path: hello } }]',
      '',
    ].join('\n'),
  );
  const host: Host = {
    name: 'serverless-offline',
    url: `http://127.0.0.1:${port}/hello`,
    headers: {},
    async start() {
      const t = performance.now();
      host.proc = spawn(
        process.execPath,
        [
          join(peerDir, 'node_modules', 'serverless', 'bin', 'serverless.js'),
          'offline',
          'start',
          '--host',
          '127.0.0.1',
          '--httpPort',
          String(port),
          '--lambdaPort',
          String(lambdaPort),
          '--noPrependStageInUrl',
        ],
        {
          cwd: workDir,
          stdio: ['ignore', 'pipe', 'pipe'],
          env: {
            ...process.env,
            SLS_TELEMETRY_DISABLED: '1',
            SLS_NOTIFICATIONS_MODE: 'off',
            SLS_DEPRECATION_DISABLE: '*',
            NODE_PATH: join(peerDir, 'node_modules'),
          },
        },
      );
      drain(host.proc);
      await waitForPort(port, host.proc, 60_000);
      return { readyMs: performance.now() - t };
    },
    stop: () => stopProcess(host.proc),
  };
  return host;
}

/**
 * Each host's request options, parsed once: the bench's client costs CPU on the same two cores
 * as the hosts, so it does per request only what any keep-alive client must (no URL parse per
 * request, the body discarded without a listener per chunk). The same for every host.
 */
const requestOptions = new WeakMap<Host, http.RequestOptions>();
function optionsOf(host: Host, agent: http.Agent): http.RequestOptions {
  let o = requestOptions.get(host);
  if (o === undefined || o.agent !== agent || o.headers !== host.headers) {
    const u = new URL(host.url);
    o = { host: u.hostname, port: Number(u.port), path: u.pathname + u.search, agent, headers: host.headers };
    requestOptions.set(host, o);
  }
  return o;
}

function get(agent: http.Agent, host: Host): Promise<number> {
  return new Promise((resolve, reject) => {
    const t = performance.now();
    const req = http.get(optionsOf(host, agent), (res) => {
      res.resume();
      res.on('end', () => {
        if (res.statusCode !== 200) reject(new Error(`${host.name} answered ${res.statusCode}`));
        else resolve(performance.now() - t);
      });
    });
    req.on('error', reject);
  });
}

function cpuOf(host: Host): { server: number; children: number } {
  const pid = host.proc?.pid;
  if (pid === undefined) throw new Error(`${host.name} is not running`);
  return {
    server: cpuMs(pid),
    children: childPids(pid).reduce((s, child) => s + cpuMs(child), 0),
  };
}

export async function peerComparison(peer: string, opts: PeerOptions): Promise<HostFigures[]> {
  if (peer !== 'serverless-offline')
    throw new Error(`unknown peer ${peer}: the bench knows serverless-offline`);
  const peerDir = ensurePeer(opts.log);
  const work = mkdtempSync(join(tmpdir(), 'bench-peer-'));
  // Every host this run made; the finally stops each one still running, so a failure mid-run
  // leaves no server behind.
  const hosts: Host[] = [];
  try {
    // The same handler file for both hosts; the peer resolves handler.mjs as the lab does.
    writeFileSync(join(work, 'handler.mjs'), HANDLER);
    hosts.push(await labHost(work, join(work, 'lab-functions.log')), await peerHost(peerDir, work));
    type Acc = {
      ready: number[];
      cold: number[];
      lat: number[];
      n1: number;
      t1: number;
      n4: number;
      t4: number;
      cpuS: number;
      cpuC: number;
      cpu4: number;
      client4: number;
      n: number;
    };
    const acc = new Map<string, Acc>(
      hosts.map((h) => [
        h.name,
        {
          ready: [] as number[],
          cold: [] as number[],
          lat: [] as number[],
          n1: 0,
          t1: 0,
          n4: 0,
          t4: 0,
          cpuS: 0,
          cpuC: 0,
          cpu4: 0,
          client4: 0,
          n: 0,
        },
      ]),
    );
    // Start-ups, alternating; the last one of each host stays up for the warm rounds.
    for (let s = 0; s < opts.starts; s++) {
      for (const h of s % 2 === 0 ? hosts : [...hosts].reverse()) {
        const a = acc.get(h.name) as Acc;
        const { readyMs } = await h.start();
        const agent = new http.Agent({ keepAlive: true });
        a.ready.push(readyMs);
        a.cold.push(await get(agent, h));
        agent.destroy();
        if (s < opts.starts - 1) await h.stop();
      }
    }
    // The floor takes part in the warm rounds only: its start-up is nothing anyone would run.
    const floor = await floorHost();
    await floor.start();
    hosts.push(floor);
    acc.set(floor.name, {
      ready: [],
      cold: [],
      lat: [],
      n1: 0,
      t1: 0,
      n4: 0,
      t4: 0,
      cpuS: 0,
      cpuC: 0,
      cpu4: 0,
      client4: 0,
      n: 0,
    });
    opts.log(`started ${opts.starts} times each; warm rounds ...`);
    const agents = new Map(hosts.map((h) => [h.name, new http.Agent({ keepAlive: true, maxSockets: 4 })]));
    // Warm-up, sequential and by 4 clients, so every environment the 4-client rounds use exists
    // and every process has run its request path often enough for V8 to have optimized it.
    const half = Math.max(4, Math.round(opts.warmup / 2));
    for (const h of hosts) {
      const agent = agents.get(h.name) as http.Agent;
      for (let i = 0; i < half; i++) await get(agent, h);
      await Promise.all(
        Array.from({ length: 4 }, async () => {
          for (let i = 0; i < half / 4; i++) await get(agent, h);
        }),
      );
    }
    const perRound = Math.max(1, Math.round(opts.requests / opts.rounds));
    for (let r = 0; r < opts.rounds; r++) {
      // Each host's place in the round rotates, so none always follows the same one.
      for (const h of hosts.map((_, i) => hosts[(i + r) % hosts.length])) {
        const a = acc.get(h.name) as Acc;
        const agent = agents.get(h.name) as http.Agent;
        const c0 = cpuOf(h);
        let t = performance.now();
        for (let i = 0; i < perRound; i++) a.lat.push(await get(agent, h));
        a.t1 += performance.now() - t;
        a.n1 += perRound;
        const c4 = cpuOf(h);
        const me = process.cpuUsage();
        t = performance.now();
        const each = Math.round(perRound / 4);
        await Promise.all(
          Array.from({ length: 4 }, async () => {
            for (let i = 0; i < each; i++) await get(agent, h);
          }),
        );
        a.t4 += performance.now() - t;
        a.n4 += each * 4;
        const mine = process.cpuUsage(me);
        a.client4 += (mine.user + mine.system) / 1000;
        const c1 = cpuOf(h);
        a.cpu4 += c1.server + c1.children - c4.server - c4.children;
        a.cpuS += c1.server - c0.server;
        a.cpuC += c1.children - c0.children;
        a.n += perRound + each * 4;
      }
    }
    for (const agent of agents.values()) agent.destroy();
    await Promise.all(hosts.map((h) => h.stop()));
    const p50 = (xs: number[]) => ladderOf(xs)?.p50 ?? Number.NaN;
    return hosts.map((h) => {
      const a = acc.get(h.name) as Acc;
      const l = ladderOf(a.lat);
      return {
        name: h.name,
        startToReadyMs: p50(a.ready),
        coldFirstMs: p50(a.cold),
        p50: l?.p50 ?? Number.NaN,
        p99: l?.p99 ?? Number.NaN,
        rps1: a.n1 / (a.t1 / 1000),
        rps4: a.n4 / (a.t4 / 1000),
        cpuServerMs: a.cpuS / a.n,
        cpuChildrenMs: a.cpuC / a.n,
        cpu4HostMs: a.cpu4 / a.n4,
        cpu4ClientMs: a.client4 / a.n4,
      };
    });
  } finally {
    await Promise.all(hosts.map((h) => h.stop()));
    rmSync(work, { recursive: true, force: true });
  }
}

/** The table the bench prints: each figure for both hosts and the lab's ratio to the peer. */
export function formatPeerFigures(rows: readonly HostFigures[], cores = availableParallelism()): string[] {
  const [lab, peer, floor] = rows;
  // Where 4 clients saturate when CPU is what runs out: every core busy with the host's
  // processes and the client, so cores over the CPU one request costs them all.
  const ceiling = (h: HostFigures) => (cores / (h.cpu4HostMs + h.cpu4ClientMs)) * 1000;
  const f = (n: number, d = 2) => n.toFixed(d);
  const line = (label: string, a: string, b: string, ratio: number) =>
    `   ${label.padEnd(30)}${a.padStart(10)}${b.padStart(20)}${`${ratio.toFixed(2)}x`.padStart(10)}`;
  return [
    `   ${'figure'.padEnd(30)}${'lab'.padStart(10)}${peer.name.padStart(20)}${'lab/peer'.padStart(10)}`,
    line('warm p50 (ms)', f(lab.p50), f(peer.p50), lab.p50 / peer.p50),
    line('warm p99 (ms)', f(lab.p99), f(peer.p99), lab.p99 / peer.p99),
    line('throughput, 1 client (req/s)', f(lab.rps1, 0), f(peer.rps1, 0), lab.rps1 / peer.rps1),
    line('throughput, 4 clients (req/s)', f(lab.rps4, 0), f(peer.rps4, 0), lab.rps4 / peer.rps4),
    line(
      'start to ready (ms)',
      f(lab.startToReadyMs, 0),
      f(peer.startToReadyMs, 0),
      lab.startToReadyMs / peer.startToReadyMs,
    ),
    line(
      'cold first request (ms)',
      f(lab.coldFirstMs, 1),
      f(peer.coldFirstMs, 1),
      lab.coldFirstMs / peer.coldFirstMs,
    ),
    line(
      'CPU ms/request, server',
      f(lab.cpuServerMs, 3),
      f(peer.cpuServerMs, 3),
      lab.cpuServerMs / peer.cpuServerMs,
    ),
    line(
      'CPU ms/request, all processes',
      f(lab.cpuServerMs + lab.cpuChildrenMs, 3),
      f(peer.cpuServerMs + peer.cpuChildrenMs, 3),
      (lab.cpuServerMs + lab.cpuChildrenMs) / (peer.cpuServerMs + peer.cpuChildrenMs),
    ),
    line(
      '4-client CPU ms/req (+client)',
      f(lab.cpu4HostMs + lab.cpu4ClientMs, 3),
      f(peer.cpu4HostMs + peer.cpu4ClientMs, 3),
      (lab.cpu4HostMs + lab.cpu4ClientMs) / (peer.cpu4HostMs + peer.cpu4ClientMs),
    ),
    `   4-client ceiling if CPU-bound on ${cores} cores: lab ${f(ceiling(lab), 0)} req/s, ${peer.name} ${f(ceiling(peer), 0)} req/s (${(ceiling(lab) / ceiling(peer)).toFixed(2)}x); measured ${(lab.rps4 / peer.rps4).toFixed(2)}x`,
    ...(floor
      ? [
          `   relay floor (HTTP + IPC to a process that answers at once), same rounds: p50 ${f(floor.p50)} ms, 4 clients ${f(floor.rps4, 0)} req/s, CPU ms/request server ${f(floor.cpuServerMs, 3)} + child ${f(floor.cpuChildrenMs, 3)}, 4 clients (+client) ${f(floor.cpu4HostMs + floor.cpu4ClientMs, 3)}`,
          `   the lab's host over the floor, warm p50: ${f(lab.p50 - floor.p50)} ms (goal <= 0.30)`,
        ]
      : []),
    `   goals: warm p50 <= 0.50x (${(lab.p50 / peer.p50).toFixed(2)}x), 4-client throughput >= 2.00x (${(lab.rps4 / peer.rps4).toFixed(2)}x)`,
  ];
}
