import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { APIGatewayProxyEvent } from 'aws-lambda';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import type { AssemblyFunction, Route } from '../../local/assembly/cloud-assembly';
import { signRequest } from '../../local/auth/sigv4';
import type { Invocation } from '../../local/host/function-pool';
import { FunctionPool } from '../../local/host/function-pool';
import {
  type ApiServer,
  compileRoute,
  type Integration,
  MAX_PAYLOAD_BYTES,
  startApiServer,
} from '../../local/server/api-gateway';
import { rawExchange, signedRawRequest } from '../support/lab-http';
import { until } from '../support/until';

// A bundle with one export per behaviour, as esbuild would emit it.
const BUNDLE = `
let calls = 0;
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
if (process.env.SLOW_INIT_MS) {
  console.log('init-pid', process.pid);
  await sleep(Number(process.env.SLOW_INIT_MS));
}
export const handler = async (event) => {
  calls += 1;
  const body = event.body ? JSON.parse(event.body) : {};
  if (body.crash) process.exit(3);
  if (body.lastWords) { console.log('last words'); process.exit(3); }
  if (body.logThenWaitFor) {
    console.log('waiting');
    const { existsSync } = await import('node:fs');
    for (let i = 0; i < 250 && !existsSync(body.logThenWaitFor); i++) await sleep(20);
  }
  if (body.logThenSpin) { console.log('spinning'); for (;;); }
  if (body.reusedBuffer) { const b = Buffer.from('first\\n'); process.stdout.write(b); b.write('later'); }
  if (body.lines) for (let i = 0; i < body.lines; i++) console.log('line', i, 'x'.repeat(200));
  if (body.crashAfterMs) { await sleep(body.crashAfterMs); process.exit(3); }
  if (body.throw) throw new TypeError('boom');
  if (body.sleepMs) await sleep(body.sleepMs);
  console.log('handled', calls);
  return { statusCode: 200, headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ calls, pid: process.pid, initType: process.env.AWS_LAMBDA_INITIALIZATION_TYPE, stream: process.env.AWS_LAMBDA_LOG_STREAM_NAME,
      params: event.pathParameters, path: event.path, resource: event.resource, stage: event.requestContext?.stage, FOO: process.env.FOO }) };
};
export const notJson = async () => 'not a proxy result';
`;

const dir = mkdtempSync(join(tmpdir(), 'lab-host-'));
writeFileSync(join(dir, 'index.mjs'), BUNDLE);
const brokenDir = mkdtempSync(join(tmpdir(), 'lab-host-broken-'));
writeFileSync(join(brokenDir, 'index.mjs'), "throw new Error('cannot init: missing TABLE_NAME');");
afterAll(() => {
  rmSync(dir, { recursive: true, force: true });
  rmSync(brokenDir, { recursive: true, force: true });
});

const fn = (over: Partial<AssemblyFunction> = {}): AssemblyFunction => ({
  stackName: 'Test',
  logicalId: 'Fn',
  name: 'test-fn',
  assetDir: dir,
  handler: 'index.handler',
  runtime: 'nodejs24.x',
  memorySize: 256,
  timeoutSeconds: 10,
  environment: {},
  provisionedConcurrency: 0,
  ...over,
});

const pools: FunctionPool[] = [];
function pool(
  over: Partial<AssemblyFunction> = {},
  maxEnvironments = 5,
  env: Record<string, string> = {},
  reclaimIdleMs?: number,
) {
  const lines: string[] = [];
  const p = new FunctionPool({
    fn: fn(over),
    env: { FOO: 'bar', ...env },
    maxEnvironments,
    reclaimIdleMs,
    log: (l) => lines.push(l),
  });
  pools.push(p);
  return { p, lines };
}
afterEach(async () => {
  await Promise.all(pools.splice(0).map((p) => p.stop()));
});

const event = (body: unknown = {}) => ({ body: JSON.stringify(body), pathParameters: null });
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** The pid the nth slow-starting environment printed during its init. */
async function initPid(lines: string[], nth: number): Promise<number> {
  const pids = () => lines.flatMap((l) => /\tinit-pid (\d+)$/.exec(l)?.[1] ?? []);
  await until(() => pids().length > nth);
  return Number(pids()[nth]);
}

function isRunning(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}
const REPORT =
  /^REPORT RequestId: [0-9a-f-]{36}\tDuration: \d+\.\d{2} ms\tBilled Duration: \d+ ms\tMemory Size: 256 MB\tMax Memory Used: \d+ MB\t(Init Duration: \d+\.\d{2} ms\t)?$/;

describe('function pool', () => {
  it('hands the outcome to respond before END and REPORT are logged, and logs both before it resolves', async () => {
    const { p, lines } = pool();
    let seenAtRespond: string[] = [];
    let answered: Invocation | undefined;
    const inv = await p.invoke(event(), (i) => {
      answered = i;
      seenAtRespond = [...lines];
    });
    expect(answered).toBe(inv);
    expect(inv.ok).toBe(true);
    // The answer goes out first: START was logged, END and REPORT not yet.
    expect(seenAtRespond.some((l) => l.startsWith(`START RequestId: ${inv.requestId}`))).toBe(true);
    expect(seenAtRespond.some((l) => l.startsWith(`END RequestId: ${inv.requestId}`))).toBe(false);
    expect(seenAtRespond.some((l) => l.startsWith(`REPORT RequestId: ${inv.requestId}`))).toBe(false);
    // ...and both are there, in Lambda's order, once invoke resolves.
    const end = lines.indexOf(`END RequestId: ${inv.requestId}`);
    const report = lines.findIndex((l) => l.startsWith(`REPORT RequestId: ${inv.requestId}`));
    expect(end).toBeGreaterThan(-1);
    expect(report).toBe(end + 1);
    expect(lines[report]).toMatch(REPORT);
    expect(Number(/Max Memory Used: (\d+) MB/.exec(lines[report])?.[1])).toBeGreaterThan(0);
  });

  it('logs every line an invocation wrote before its END, the held ones and those past 64 KB alike', async () => {
    const { p, lines } = pool({}, 1);
    // 400 lines of ~250 bytes: more than the worker holds (64 KB), so some go out while it runs.
    for (const n of [1, 3, 400]) {
      const inv = await p.invoke(event({ lines: n }));
      expect(inv.ok, lines.join('\n')).toBe(true);
      const end = lines.indexOf(`END RequestId: ${inv.requestId}`);
      const own = lines.flatMap((l, i) => (l.includes(`\t${inv.requestId}\tINFO\t`) ? [i] : []));
      expect(own).toHaveLength(n + 1); // its lines and the handler's 'handled'
      expect(Math.max(...own)).toBeLessThan(end);
      expect(lines.at(-2)).toBe(`END RequestId: ${inv.requestId}`);
    }
  });

  it('writes the bytes a held write was given, though the caller reuses its buffer', async () => {
    const { p, lines } = pool();
    await p.invoke(event({ reusedBuffer: true }));
    expect(lines).toContain('first');
    expect(lines).not.toContain('later');
  });

  it('writes a line held during an invocation out at its next await, not only with the result', async () => {
    const { p, lines } = pool();
    // The handler waits (at most 5 s) until this file exists: the test ends its wait.
    const go = join(dir, `go-${Date.now()}`);
    const inv = p.invoke(event({ logThenWaitFor: go }));
    // Seen while the handler still waits: a long invocation's log is live, as in Lambda.
    await until(() => lines.some((l) => l.endsWith('\tINFO\twaiting')), 2500);
    expect(lines.some((l) => l.startsWith('END RequestId:'))).toBe(false);
    writeFileSync(go, '');
    expect((await inv).ok).toBe(true);
  });

  it('keeps the lines a function wrote right before it exits', async () => {
    const { p, lines } = pool();
    const crashed = await p.invoke(event({ lastWords: true }));
    expect(crashed).toMatchObject({ ok: false, reason: 'crash' });
    await until(() => lines.some((l) => l.endsWith('\tINFO\tlast words')));
  });

  // A difference from Lambda the README lists: held output dies with a process killed mid-stretch.
  it('loses the line a function wrote before it spun into its timeout', async () => {
    const { p, lines } = pool({ timeoutSeconds: 1 });
    const r = await p.invoke(event({ logThenSpin: true }));
    expect(r).toMatchObject({ ok: false, reason: 'timeout' });
    await sleep(300);
    expect(lines.find((l) => l.startsWith('REPORT'))).toContain('Status: timeout');
    expect(lines.some((l) => l.endsWith('\tINFO\tspinning'))).toBe(false);
  });

  it("answers before its END and REPORT; the environment's next START still follows them", async () => {
    const { p, lines } = pool();
    let next: Promise<Invocation> | undefined;
    let atAnswer: string[] = [];
    const first = await p.invoke(event(), () => {
      atAnswer = [...lines];
      // The next request comes before the timer's turn that logs the first one's lines.
      setImmediate(() => {
        next = p.invoke(event());
      });
    });
    expect(atAnswer.some((l) => l.startsWith('END RequestId:'))).toBe(false);
    // Resolved: its lines are in.
    const at = (prefix: string, id: string) =>
      lines.findIndex((l) => l.startsWith(`${prefix} RequestId: ${id}`));
    expect(at('REPORT', first.requestId)).toBeGreaterThan(at('END', first.requestId));
    const second = await next;
    if (!second) throw new Error('no second invocation');
    expect(at('START', second.requestId)).toBeGreaterThan(at('REPORT', first.requestId));
    expect(p.snapshot()).toMatchObject({ coldStarts: 1, started: 1 });
  });

  it('frees the environment before a request sent the turn after its answer, which reuses it', async () => {
    const { p } = pool();
    await p.invoke(event());
    let next: Promise<Invocation> | undefined;
    // As a client's next request arrives: after the answer, in a later turn of the event loop.
    await p.invoke(event(), () => {
      setImmediate(() => {
        next = p.invoke(event());
      });
    });
    await until(() => next !== undefined);
    expect((await next)?.ok).toBe(true);
    expect(p.snapshot()).toMatchObject({ coldStarts: 1, started: 1 });
  });

  it('still logs REPORT and frees the environment when respond throws, then rejects with its error', async () => {
    const { p, lines } = pool({}, 1);
    const first = p.invoke(event(), () => {
      throw new Error('socket gone');
    });
    await expect(first).rejects.toThrow('socket gone');
    expect(lines.filter((l) => l.startsWith('REPORT RequestId:'))).toHaveLength(1);
    // The only environment was released: the next request runs on it instead of waiting.
    const next = await p.invoke(event());
    expect(next.ok).toBe(true);
    expect(p.snapshot()).toMatchObject({ started: 1, queued: 0 });
  });

  it('starts an environment on the first call (cold, with Init Duration) and reuses it when idle', async () => {
    const { p, lines } = pool();
    const a = await p.invoke(event());
    const b = await p.invoke(event());
    expect(a.ok && b.ok).toBe(true);
    const [ra, rb] = [a, b].map((r) =>
      r.ok ? JSON.parse((r.response as { body: string }).body) : undefined,
    );
    expect(rb.pid).toBe(ra.pid);
    expect(rb.calls).toBe(2);
    // Lambda names each environment's log stream, and sets AWS_LAMBDA_LOG_STREAM_NAME to it.
    expect(ra.stream).toMatch(/^\d{4}\/\d\d\/\d\d\/\[\$LATEST\][0-9a-f]{32}$/);
    expect(rb.stream).toBe(ra.stream);
    expect(ra).toMatchObject({ initType: 'on-demand', FOO: 'bar' });
    const reports = lines.filter((l) => l.startsWith('REPORT'));
    expect(reports).toHaveLength(2);
    for (const r of reports) expect(r).toMatch(REPORT);
    expect(reports[0]).toContain('Init Duration');
    expect(reports[1]).not.toContain('Init Duration');
    expect(lines.some((l) => /^START RequestId: \S+ Version: \$LATEST$/.test(l))).toBe(true);
    expect(lines.some((l) => /^\d{4}-\d\d-\d\dT\S+Z\t[0-9a-f-]{36}\tINFO\thandled 1$/.test(l))).toBe(true);
    expect(p.snapshot()).toMatchObject({ environments: 1, coldStarts: 1, started: 1 });
  });

  it('starts a new environment when all are busy, one request at a time each; at the cap, requests wait', async () => {
    const { p } = pool({}, 2);
    const started = Date.now();
    const results = await Promise.all([1, 2, 3].map(() => p.invoke(event({ sleepMs: 600 }))));
    expect(results.every((r) => r.ok)).toBe(true);
    const pids = new Set(
      results.map((r) => (r.ok ? JSON.parse((r.response as { body: string }).body).pid : 0)),
    );
    expect(pids.size).toBe(2);
    const streams = new Set(
      results.map((r) => (r.ok ? JSON.parse((r.response as { body: string }).body).stream : '')),
    );
    expect(streams.size).toBe(2);
    // The third waited for one of the two to finish: two sleeps in a row.
    expect(Date.now() - started).toBeGreaterThanOrEqual(1200);
    expect(p.snapshot()).toMatchObject({ environments: 2, coldStarts: 2, queued: 1 });
  });

  it('initializes provisioned environments before the first request', async () => {
    const { p, lines } = pool({ provisionedConcurrency: 2 });
    await p.start();
    expect(p.snapshot()).toMatchObject({ environments: 2, coldStarts: 0 });
    expect(
      lines.filter((l) => /^INIT_REPORT Init Duration: \d+\.\d\d ms\tPhase: init\tStatus: success$/.test(l)),
    ).toHaveLength(2);
    const r = await p.invoke(event());
    expect(r.ok && JSON.parse((r.response as { body: string }).body).initType).toBe(
      'provisioned-concurrency',
    );
    expect(lines.find((l) => l.startsWith('REPORT'))).not.toContain('Init Duration');
  });

  it('with reclaimIdleMs, ends an environment left idle that long: the next request is a cold start in a new one', async () => {
    const { p, lines } = pool({}, 5, {}, 500);
    const body = (r: Invocation) => (r.ok ? JSON.parse((r.response as { body: string }).body) : undefined);
    const a = body(await p.invoke(event()));
    // Used again within the window: the same warm environment.
    const b = body(await p.invoke(event()));
    expect(b.pid).toBe(a.pid);
    // Idle past the window: the host ends it, as Lambda's shutdown phase ends an idle environment.
    await until(() => p.snapshot().reclaimed === 1 && p.snapshot().environments === 0);
    await until(() => !isRunning(a.pid));
    const c = body(await p.invoke(event()));
    expect(c.pid).not.toBe(a.pid);
    expect(c.stream).not.toBe(a.stream);
    expect(c.calls).toBe(1);
    const reports = lines.filter((l) => l.startsWith('REPORT'));
    expect(reports.map((r) => r.includes('Init Duration'))).toEqual([true, false, true]);
    expect(p.snapshot()).toMatchObject({ coldStarts: 2, started: 2, reclaimed: 1 });
  });

  it('with reclaimIdleMs, keeps provisioned environments, and refuses a window that is not positive', async () => {
    const { p } = pool({ provisionedConcurrency: 1 }, 5, {}, 150);
    await p.start();
    const first = await p.invoke(event());
    // Well past the window (4x): a provisioned environment stays initialized, as Lambda keeps it.
    await sleep(600);
    const second = await p.invoke(event());
    const pid = (r: Invocation) => (r.ok ? JSON.parse((r.response as { body: string }).body).pid : 0);
    expect(pid(second)).toBe(pid(first));
    expect(p.snapshot()).toMatchObject({ environments: 1, coldStarts: 0, reclaimed: 0 });
    expect(() => pool({}, 5, {}, 0)).toThrow(/reclaimIdleMs must be a positive number of ms, got 0/);
  });

  it('reports a crashed environment as Lambda does and replaces it', async () => {
    const { p, lines } = pool();
    const crashed = await p.invoke(event({ crash: true }));
    expect(crashed).toMatchObject({ ok: false, reason: 'crash' });
    expect(lines.find((l) => l.startsWith('REPORT'))).toMatch(
      /\tStatus: error\tError Type: Runtime\.ExitError\t$/,
    );
    expect(lines).toContain('Runtime.ExitError');
    expect(lines.some((l) => /Error: Runtime exited with error: exit status 3$/.test(l))).toBe(true);
    const next = await p.invoke(event());
    expect(next.ok).toBe(true);
    expect(p.snapshot()).toMatchObject({ crashes: 1, started: 2, environments: 1 });
  });

  it('ends an invocation at the function timeout and discards the environment', async () => {
    const { p, lines } = pool({ timeoutSeconds: 1 });
    const r = await p.invoke(event({ sleepMs: 5000 }));
    // The timeout fired (reason and message), before the 5 s handler could finish.
    expect(r).toMatchObject({ ok: false, reason: 'timeout', message: 'Task timed out after 1.00 seconds' });
    expect(lines.find((l) => l.startsWith('REPORT'))).toContain('Status: timeout');
    await new Promise((res) => setTimeout(res, 200));
    expect(p.snapshot().environments).toBe(0);
  });

  it('hands a request queued behind a timeout a fresh environment, never the dying one', async () => {
    const { p, lines } = pool({ timeoutSeconds: 2 }, 1);
    const slow = p.invoke(event({ sleepMs: 10_000 }));
    await until(() => p.snapshot().busy === 1);
    // Queued well after the slow one started, so it is still waiting when the timeout hits.
    await sleep(1000);
    const queued = p.invoke(event());
    expect(await slow).toMatchObject({ ok: false, reason: 'timeout' });
    const r = await queued;
    expect(r, JSON.stringify(r)).toMatchObject({ ok: true });
    expect(p.snapshot()).toMatchObject({ crashes: 0, started: 2 });
    expect(lines.filter((l) => l.includes('Runtime exited'))).toEqual([]);
  });

  it('throttles a request that finds no free environment within the function timeout, saying why', async () => {
    // The only environment is still initializing when the waiting request's time runs out.
    const { p, lines } = pool({ timeoutSeconds: 1 }, 1, { SLOW_INIT_MS: '2500' });
    const first = p.invoke(event());
    await until(() => lines.some((l) => l.includes('init-pid')));
    const r = await p.invoke(event());
    expect(r).toMatchObject({
      ok: false,
      reason: 'throttled',
      message: 'throttled: no free environment within 1 s (all 1 environments busy)',
    });
    expect(
      lines.some((l) => l.endsWith('\tthrottled: no free environment within 1 s (all 1 environments busy)')),
    ).toBe(true);
    expect((await first).ok).toBe(true);
  });

  it('stop() ends environments still starting: no process of a pending start survives', async () => {
    const { p, lines } = pool({}, 1, { SLOW_INIT_MS: '20000' });
    const pending = p.invoke(event());
    const pid = await initPid(lines, 0);
    try {
      expect(isRunning(pid)).toBe(true);
      await p.stop();
      expect(isRunning(pid), `pid ${pid} after stop()`).toBe(false);
      expect(await pending).toMatchObject({
        ok: false,
        reason: 'throttled',
        message: 'throttled: host is stopping',
      });
    } finally {
      if (isRunning(pid)) process.kill(pid, 'SIGKILL');
    }
  });

  it('stop() ends a replacement environment still starting after a crash', async () => {
    const { p, lines } = pool({}, 1, { SLOW_INIT_MS: '1000' });
    const crashing = p.invoke(event({ crashAfterMs: 400 }));
    await until(() => p.snapshot().busy === 1);
    // Waits at the cap; the crash frees the slot and a replacement starts for it.
    const waiting = p.invoke(event());
    expect(await crashing).toMatchObject({ ok: false, reason: 'crash' });
    const pid = await initPid(lines, 1);
    try {
      await p.stop();
      expect(isRunning(pid), `pid ${pid} after stop()`).toBe(false);
      expect(await waiting).toMatchObject({ ok: false, reason: 'throttled' });
    } finally {
      if (isRunning(pid)) process.kill(pid, 'SIGKILL');
    }
  });

  it('reports an init failure without starting to serve', async () => {
    const { p } = pool({ assetDir: brokenDir });
    const r = await p.invoke(event());
    expect(r).toMatchObject({ ok: false, reason: 'init' });
    expect(!r.ok && r.message).toContain('cannot init: missing TABLE_NAME');
  });
});

describe('API server with IAM authorization', () => {
  it('answers 403 to unsigned or wrongly signed requests and serves signed ones', async () => {
    const { p } = pool();
    const creds = { accessKeyId: 'CALLER', secretAccessKey: 'secret' };
    const route = compileRoute({ method: 'POST', path: '/dynamodb/person', function: fn() }, p);
    const server = await startApiServer({
      routes: [route],
      stage: 'lab',
      host: '127.0.0.1',
      port: 0,
      iam: { credentials: creds },
    });
    try {
      const url = `${server.url}/dynamodb/person`;
      const body = '{"a":1}';
      const unsigned = await fetch(url, { method: 'POST', body });
      expect(unsigned.status).toBe(403);
      expect(await unsigned.json()).toEqual({ message: 'Missing Authentication Token' });
      const headers = { 'content-type': 'application/json' };
      const sig = await signRequest({ method: 'POST', url, headers, body }, creds, 'us-east-1');
      const ok = await fetch(url, { method: 'POST', body, headers: { ...headers, ...sig } });
      expect(ok.status).toBe(200);
      const tampered = await fetch(url, { method: 'POST', body: '{"a":2}', headers: { ...headers, ...sig } });
      expect(tampered.status).toBe(403);
      expect(p.snapshot().started).toBe(1);
    } finally {
      await server.close();
    }
  });
});

describe('API server', () => {
  it('routes like a REST API stage: path parameters, 403 for unknown routes, 413 for oversize, 502 for failures', async () => {
    const { p } = pool();
    const { p: bad } = pool({ handler: 'index.notJson' });
    const routes: Route[] = [
      { method: 'GET', path: '/dynamodb/person/{govId}', function: fn() },
      { method: 'POST', path: '/dynamodb/person', function: fn() },
    ];
    const compiled = [compileRoute(routes[0], p), compileRoute(routes[1], p)];
    compiled.push(compileRoute({ method: 'GET', path: '/bad', function: fn() }, bad));
    const server = await startApiServer({ routes: compiled, stage: 'lab', host: '127.0.0.1', port: 0 });
    try {
      const got = await fetch(`${server.url}/dynamodb/person/AB%2D1`);
      expect(got.status).toBe(200);
      expect(await got.json()).toMatchObject({
        params: { govId: 'AB-1' },
        path: '/dynamodb/person/AB%2D1',
        resource: '/dynamodb/person/{govId}',
        stage: 'lab',
      });
      for (const [method, path] of [
        ['GET', '/dynamodb/person'],
        ['DELETE', '/dynamodb/person/AB-1'],
        ['GET', '/other'],
      ]) {
        const r = await fetch(`${server.url}${path}`, { method });
        expect(r.status, `${method} ${path}`).toBe(403);
        expect(await r.json()).toEqual({ message: 'Missing Authentication Token' });
      }
      const outsideStage = await fetch(server.url.replace('/lab', '/dynamodb/person/AB-1'));
      expect(outsideStage.status).toBe(403);
      const huge = await fetch(`${server.url}/dynamodb/person`, {
        method: 'POST',
        body: 'x'.repeat(MAX_PAYLOAD_BYTES + 1),
      });
      expect(huge.status).toBe(413);
      expect(await huge.json()).toEqual({ message: 'Request Too Long' });
      const thrown = await fetch(`${server.url}/dynamodb/person`, { method: 'POST', body: '{"throw":true}' });
      expect(thrown.status).toBe(502);
      expect(await thrown.json()).toEqual({ message: 'Internal server error' });
      const notProxy = await fetch(`${server.url}/bad`);
      expect(notProxy.status).toBe(502);
      const crash = await fetch(`${server.url}/dynamodb/person`, { method: 'POST', body: '{"crash":true}' });
      expect(crash.status).toBe(502);
      // The host stays up and the next request gets a fresh environment.
      expect((await fetch(`${server.url}/dynamodb/person/AB-2`)).status).toBe(200);
    } finally {
      await server.close();
    }
  });

  it('survives a client that goes away mid-body, invoking nothing', async () => {
    const { p, lines } = pool();
    const route = compileRoute({ method: 'POST', path: '/dynamodb/person', function: fn() }, p);
    const server = await startApiServer({ routes: [route], stage: 'lab', host: '127.0.0.1', port: 0 });
    try {
      const { port } = new URL(server.url);
      // Promises 1000 bytes, sends 10, hangs up.
      await new Promise<void>((resolve) => {
        const socket = connect(Number(port), '127.0.0.1', () => {
          socket.write(
            'POST /lab/dynamodb/person HTTP/1.1\r\nHost: x\r\nContent-Length: 1000\r\n\r\n{"GovId":"',
          );
          setTimeout(() => socket.destroy(), 50);
        });
        socket.on('close', () => resolve());
      });
      await new Promise((r) => setTimeout(r, 50));
      expect(lines.filter((l) => l.startsWith('START'))).toEqual([]);
      const after = await fetch(`${server.url}/dynamodb/person`, { method: 'POST', body: '{}' });
      expect(after.status).toBe(200);
    } finally {
      await server.close();
    }
  });
});

/** An integration that answers what the test says, standing in for a function pool. */
function stubIntegration(
  answer: (event: APIGatewayProxyEvent) => Invocation | Promise<Invocation>,
): Integration {
  return { invoke: async (e: unknown) => answer(e as APIGatewayProxyEvent) };
}
const ok = (response: unknown): Invocation => ({ ok: true, requestId: 'r', response, durationMs: 1 });

describe('API server: every request ends in an answer', () => {
  const creds = { accessKeyId: 'CALLER', secretAccessKey: 'secret' };
  let server: ApiServer | undefined;
  const serverLog: string[] = [];
  afterEach(async () => {
    await server?.close();
    server = undefined;
    serverLog.length = 0;
  });
  async function serve(integration: Integration, iam = false) {
    const routes = [
      compileRoute({ method: 'GET', path: '/r/{case}', function: fn() }, integration),
      compileRoute({ method: 'POST', path: '/dynamodb/person', function: fn() }, integration),
    ];
    server = await startApiServer({
      routes,
      stage: 'lab',
      host: '127.0.0.1',
      port: 0,
      iam: iam ? { credentials: creds } : undefined,
      log: (l) => serverLog.push(l),
    });
    return server;
  }
  // A fresh deadline per request: a hung answer fails the test instead of stalling it.
  const bounded = () => ({ signal: AbortSignal.timeout(5000) });

  it('answers 502 to every proxy result API Gateway would reject, and keeps serving', async () => {
    const good = {
      statusCode: 200,
      headers: { 'x-a': 'b' },
      multiValueHeaders: { 'x-m': ['1', '2'] },
      body: 'fine',
    };
    const bad: Record<string, unknown> = {
      status700: { statusCode: 700, body: '' },
      status99: { statusCode: 99, body: '' },
      status0: { statusCode: 0 },
      fractional: { statusCode: 200.5, body: '' },
      stringStatus: { statusCode: '200', body: '' },
      nanStatus: { statusCode: Number.NaN, body: '' },
      numberHeader: { statusCode: 200, headers: { 'x-n': 1 }, body: '' },
      nullHeader: { statusCode: 200, headers: { 'x-n': null }, body: '' },
      objectHeader: { statusCode: 200, headers: { 'x-n': { a: 1 } }, body: '' },
      headersNotObject: { statusCode: 200, headers: 'x-n: 1', body: '' },
      headerWithNewline: { statusCode: 200, headers: { 'x-n': 'a\r\nSet-Cookie: evil=1' }, body: '' },
      badHeaderName: { statusCode: 200, headers: { 'a b': 'x' }, body: '' },
      multiNotArray: { statusCode: 200, multiValueHeaders: { 'x-m': 'one' }, body: '' },
      multiNumber: { statusCode: 200, multiValueHeaders: { 'x-m': [1] }, body: '' },
      numberBody: { statusCode: 200, body: 42 },
      objectBody: { statusCode: 200, body: { a: 1 } },
      base64NotBoolean: { statusCode: 200, body: '', isBase64Encoded: 'yes' },
      array: [200, 'x'],
      nothing: null,
    };
    const s = await serve(
      stubIntegration((e) =>
        ok(e.pathParameters?.case === 'good' ? good : bad[e.pathParameters?.case ?? '']),
      ),
    );
    for (const name of Object.keys(bad)) {
      const r = await fetch(`${s.url}/r/${name}`, bounded());
      expect(r.status, name).toBe(502);
      expect(r.headers.get('x-amzn-errortype'), name).toBe('InternalServerErrorException');
      expect(await r.json(), name).toEqual({ message: 'Internal server error' });
    }
    expect(serverLog.filter((l) => l.includes('malformed Lambda proxy response'))).toHaveLength(
      Object.keys(bad).length,
    );
    const r = await fetch(`${s.url}/r/good`, bounded());
    expect(r.status).toBe(200);
    expect(r.headers.get('x-a')).toBe('b');
    expect(r.headers.get('x-m')).toBe('1, 2');
    expect(await r.text()).toBe('fine');
  });

  it("writes the function's body byte for byte with its Content-Length, never chunked: UTF-8 text and base64 binary", async () => {
    const binary = Buffer.from([0x00, 0xff, 0x80, 0x0d, 0x0a, 0xe9]);
    const s = await serve(
      stubIntegration((e) =>
        ok(
          e.pathParameters?.case === 'binary'
            ? { statusCode: 201, body: binary.toString('base64'), isBase64Encoded: true }
            : { statusCode: 200, headers: { 'x-note': 'caf\u00e9 ok' }, body: 'h\u00e9llo \u{1f600}' },
        ),
      ),
    );
    const { port } = new URL(s.url);
    const exchange = async (path: string) => {
      const r = await rawExchange(Number(port), `GET /lab/r/${path} HTTP/1.1\r\nHost: x\r\n\r\n`);
      const raw = Buffer.from(r.text, 'latin1');
      const split = raw.indexOf('\r\n\r\n');
      return { head: raw.subarray(0, split).toString('latin1'), body: raw.subarray(split + 4) };
    };
    const text = await exchange('text');
    const utf8 = Buffer.from('h\u00e9llo \u{1f600}', 'utf8');
    expect(text.head).toMatch(/^HTTP\/1\.1 200 OK\r\n/);
    expect(text.head).toContain(`content-length: ${utf8.length}`);
    expect(text.head).toContain('x-note: caf\u00e9 ok');
    expect(text.head.toLowerCase()).not.toContain('transfer-encoding');
    expect(text.body.equals(utf8)).toBe(true);
    const bin = await exchange('binary');
    expect(bin.head).toMatch(/^HTTP\/1\.1 201 Created\r\n/);
    expect(bin.head).toContain(`content-length: ${binary.length}`);
    expect(bin.head.toLowerCase()).not.toContain('transfer-encoding');
    expect(bin.body.equals(binary)).toBe(true);
  });

  it('passes a header named __proto__ to the function as a header like any other', async () => {
    let seen: APIGatewayProxyEvent | undefined;
    const s = await serve(
      stubIntegration((e) => {
        seen = e;
        return ok({ statusCode: 200, body: 'ok' });
      }),
    );
    const { port } = new URL(s.url);
    const r = await rawExchange(
      Number(port),
      'GET /lab/r/x HTTP/1.1\r\nHost: x\r\n__proto__: one\r\n__proto__: two\r\n\r\n',
    );
    expect(r.statuses).toEqual([200]);
    // What the environment receives: the event as JSON.
    const event = JSON.parse(JSON.stringify(seen));
    const own = (o: object) => Object.getOwnPropertyDescriptor(o, '__proto__')?.value;
    expect(own(event.headers)).toBe('two');
    expect(own(event.multiValueHeaders)).toEqual(['one', 'two']);
    expect(Object.getPrototypeOf(seen?.multiValueHeaders)).toBe(Object.prototype);
  });

  it('answers a throttled invocation as API Gateway does a Lambda throttle: 500, and logs why', async () => {
    const message = 'throttled: no free environment within 3 s (all 1 environments busy)';
    const s = await serve(
      stubIntegration(() => ({ ok: false, requestId: 'r', reason: 'throttled', message })),
    );
    const r = await fetch(`${s.url}/r/x`, bounded());
    expect(r.status).toBe(500);
    expect(r.headers.get('x-amzn-errortype')).toBe('InternalServerErrorException');
    expect(await r.json()).toEqual({ message: 'Internal server error' });
    expect(serverLog).toEqual([`GET /lab/r/x: 500, ${message}`]);
  });

  it('turns an unexpected throw into a 500 and a log line, never a crashed host', async () => {
    let calls = 0;
    const s = await serve(
      stubIntegration(() => {
        calls += 1;
        if (calls === 1) throw new Error('integration blew up');
        return ok({ statusCode: 200, body: 'after' });
      }),
    );
    const r = await fetch(`${s.url}/r/x`, bounded());
    expect(r.status).toBe(500);
    expect(await r.json()).toEqual({ message: 'Internal server error' });
    expect(serverLog.some((l) => l.includes('integration blew up'))).toBe(true);
    const after = await fetch(`${s.url}/r/x`, bounded());
    expect(await after.text()).toBe('after');
  });

  it('names the auth failure in x-amzn-errortype', async () => {
    const s = await serve(
      stubIntegration(() => ok({ statusCode: 200, body: '{}' })),
      true,
    );
    const url = `${s.url}/dynamodb/person`;
    const body = '{"a":1}';
    const headers = { 'content-type': 'application/json' };
    const sig = await signRequest({ method: 'POST', url, headers, body }, creds, 'us-east-1');
    const cases: [string, RequestInit & { url?: string }, number, string | null][] = [
      ['unsigned', { method: 'POST', body }, 403, 'MissingAuthenticationTokenException'],
      [
        'unknown route',
        { method: 'GET', url: `${s.url}/nowhere` },
        403,
        'MissingAuthenticationTokenException',
      ],
      [
        'tampered',
        { method: 'POST', body: '{"a":2}', headers: { ...headers, ...sig } },
        403,
        'InvalidSignatureException',
      ],
      [
        'malformed authorization',
        {
          method: 'POST',
          body,
          headers: { ...headers, authorization: 'AWS4-HMAC-SHA256 Credential=CALLER' },
        },
        403,
        'IncompleteSignatureException',
      ],
      ['signed', { method: 'POST', body, headers: { ...headers, ...sig } }, 200, null],
    ];
    for (const [name, { url: at, ...init }, status, errorType] of cases) {
      const r = await fetch(at ?? url, { ...init, ...bounded() });
      expect(r.status, name).toBe(status);
      expect(r.headers.get('x-amzn-errortype'), name).toBe(errorType);
    }
  });

  it('never builds a URL from the Host header: a hostile Host with a forged signature is a 403', async () => {
    const s = await serve(
      stubIntegration(() => ok({ statusCode: 200, body: 'served' })),
      true,
    );
    const { port } = new URL(s.url);
    const now = new Date().toISOString().replace(/[:-]|\.\d{3}/g, '');
    const forged = (host: string) =>
      [
        'POST /lab/dynamodb/person HTTP/1.1',
        `Host: ${host}`,
        `X-Amz-Date: ${now}`,
        `Authorization: AWS4-HMAC-SHA256 Credential=CALLER/${now.slice(0, 8)}/us-east-1/execute-api/aws4_request, SignedHeaders=host;x-amz-date, Signature=${'0'.repeat(64)}`,
        'Content-Length: 2',
        '',
        '{}',
      ].join('\r\n');
    for (const host of ['a b[', '[::1', 'x:99999999', '%zz', 'user@']) {
      const r = await rawExchange(Number(port), forged(host));
      expect(r.statuses, host).toEqual([403]);
      expect(r.text, host).toContain('x-amzn-errortype: InvalidSignatureException');
    }
    expect(serverLog).toEqual([]);
    const signed = await signedRawRequest(s.url, 'POST', '/dynamodb/person', '{}', { credentials: creds });
    expect((await rawExchange(Number(port), signed)).statuses).toEqual([200]);
  });

  it('accepts absolute-form targets, refuses targets it cannot parse, and answers malformed HTTP with 400', async () => {
    const s = await serve(
      stubIntegration(() => ok({ statusCode: 200, body: 'served' })),
      true,
    );
    const { port, host } = new URL(s.url);
    const absolute = await signedRawRequest(s.url, 'POST', '/dynamodb/person', '{}', {
      credentials: creds,
      target: `http://${host}/lab/dynamodb/person`,
    });
    const r = await rawExchange(Number(port), absolute);
    expect(r.statuses).toEqual([200]);
    expect(r.text).toMatch(/\r\n\r\nserved$/);
    const otherScheme = await signedRawRequest(s.url, 'POST', '/dynamodb/person', '{}', {
      credentials: creds,
      target: `ftp://${host}/lab/dynamodb/person`,
    });
    const refused = await rawExchange(Number(port), otherScheme);
    expect(refused.statuses).toEqual([400]);
    expect(refused.text).toContain('{"message":"Bad Request"}');
    const junk = await rawExchange(Number(port), 'NOT HTTP AT ALL\r\n\r\n');
    expect(junk.statuses).toEqual([400]);
    expect(junk.text).toContain('{"message":"Bad Request"}');
    const signed = await signedRawRequest(s.url, 'POST', '/dynamodb/person', '{}', { credentials: creds });
    expect((await rawExchange(Number(port), signed)).statuses).toEqual([200]);
  });
});
