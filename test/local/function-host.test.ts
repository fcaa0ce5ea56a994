import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import type { AssemblyFunction, Route } from '../../local/assembly/cloud-assembly';
import { signRequest } from '../../local/auth/sigv4';
import { FunctionPool } from '../../local/host/function-pool';
import { compileRoute, MAX_PAYLOAD_BYTES, startApiServer } from '../../local/server/api-gateway';

// A bundle with one export per behaviour, as esbuild would emit it.
const BUNDLE = `
let calls = 0;
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
export const handler = async (event) => {
  calls += 1;
  const body = event.body ? JSON.parse(event.body) : {};
  if (body.crash) process.exit(3);
  if (body.throw) throw new TypeError('boom');
  if (body.sleepMs) await sleep(body.sleepMs);
  console.log('handled', calls);
  return { statusCode: 200, headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ calls, pid: process.pid, initType: process.env.AWS_LAMBDA_INITIALIZATION_TYPE,
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
function pool(over: Partial<AssemblyFunction> = {}, maxEnvironments = 5) {
  const lines: string[] = [];
  const p = new FunctionPool({
    fn: fn(over),
    env: { FOO: 'bar' },
    maxEnvironments,
    log: (l) => lines.push(l),
  });
  pools.push(p);
  return { p, lines };
}
afterEach(async () => {
  await Promise.all(pools.splice(0).map((p) => p.stop()));
});

const event = (body: unknown = {}) => ({ body: JSON.stringify(body), pathParameters: null });
const REPORT =
  /^REPORT RequestId: [0-9a-f-]{36}\tDuration: \d+\.\d{2} ms\tBilled Duration: \d+ ms\tMemory Size: 256 MB\tMax Memory Used: \d+ MB\t(Init Duration: \d+\.\d{2} ms\t)?$/;

describe('function pool', () => {
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
    const started = Date.now();
    const r = await p.invoke(event({ sleepMs: 5000 }));
    expect(Date.now() - started).toBeLessThan(3000);
    expect(r).toMatchObject({ ok: false, reason: 'timeout', message: 'Task timed out after 1.00 seconds' });
    expect(lines.find((l) => l.startsWith('REPORT'))).toContain('Status: timeout');
    await new Promise((res) => setTimeout(res, 200));
    expect(p.snapshot().environments).toBe(0);
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
