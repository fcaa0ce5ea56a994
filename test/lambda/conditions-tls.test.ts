import { execFile } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { articleConditions, type Conditions, functionEnv, TODAY } from '../../experiments/conditions';
import { type NetworkModel, startNetworkModel } from '../../local/network/network-model';
import { type CertificatePaths, ensureCertificates } from '../../local/tls/certificates';
import { SEEDS } from '../../report/article-figures';
import { SHARED_ENGINE_HOOK_MS, tableOfItsOwn } from '../support/shared-engines';
import { sharedTestEngine, type TestEngine } from '../support/test-engine';

const run = promisify(execFile);
const FUNCTION = fileURLToPath(new URL('../support/conditions-function.ts', import.meta.url));
const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const TABLE = tableOfItsOwn('Person');
const CALLS = 4;

let certDir: string;
let certs: CertificatePaths;
let engine: TestEngine;

beforeAll(async () => {
  certDir = await mkdtemp(join(tmpdir(), 'conditions-tls-'));
  certs = await ensureCertificates(certDir);
  engine = await sharedTestEngine('dynalite', TABLE);
}, SHARED_ENGINE_HOOK_MS);

afterAll(async () => {
  await engine?.stop();
  await rm(certDir, { recursive: true, force: true });
});

/** CALLS gets by a function built from its env under `c` (the SDK's own keep-alive), behind a front of its own. */
async function getsUnder(c: Conditions): Promise<{
  model: ReturnType<NetworkModel['stats']>;
  calls: { status: number; newConnection: boolean }[];
}> {
  const model = await startNetworkModel({
    upstreamHost: '127.0.0.1',
    upstreamPort: Number(new URL(engine.endpoint).port),
    rttMs: 0,
    tls: certs,
  });
  try {
    const { stdout } = await run(process.execPath, ['--import', 'tsx', FUNCTION, String(CALLS)], {
      cwd: ROOT,
      env: {
        PATH: process.env.PATH,
        // Read at process start, as in Lambda: the front's certificate is trusted, never unchecked.
        NODE_EXTRA_CA_CERTS: certs.caCertPath,
        AWS_REGION: 'us-east-1',
        AWS_ACCESS_KEY_ID: 'local',
        AWS_SECRET_ACCESS_KEY: 'local',
        AWS_ENDPOINT_URL_DYNAMODB: model.url,
        TABLE_NAME: TABLE,
        ...functionEnv(c, 'default'),
      },
    });
    return { model: model.stats(), calls: JSON.parse(stdout.trim().split('\n').at(-1) ?? '[]') };
  } finally {
    await model.close();
  }
}

describe('a function under conditions, seen from the front', () => {
  it('under the keep-alive article’s (2019, SDK v2): TLS 1.2, and a new connection for every call', async () => {
    const c = articleConditions(SEEDS.keepAlive);
    expect(functionEnv(c, 'default')).toEqual({ KEEP_ALIVE: 'off', LAB_TLS_MAX_VERSION: 'TLSv1.2' });
    const { model, calls } = await getsUnder(c);
    expect(calls.map((x) => x.status)).toEqual(Array(CALLS).fill(404));
    expect(model.connectionsAccepted).toBe(CALLS);
    expect(model.handshakes).toEqual({ 'TLSv1.2': CALLS });
    expect(calls.every((x) => x.newConnection)).toBe(true);
  }, 60_000);

  it('under today’s (SDK v3): TLS 1.3, and one connection kept for every call', async () => {
    expect(functionEnv(TODAY, 'default')).toEqual({ KEEP_ALIVE: 'on', LAB_TLS_MAX_VERSION: 'TLSv1.3' });
    const { model, calls } = await getsUnder(TODAY);
    expect(calls.map((x) => x.status)).toEqual(Array(CALLS).fill(404));
    expect(model.connectionsAccepted).toBe(1);
    expect(model.handshakes).toEqual({ 'TLSv1.3': 1 });
    expect(calls.map((x) => x.newConnection)).toEqual([true, ...Array(CALLS - 1).fill(false)]);
  }, 60_000);

  it('an article whose function enabled keep-alive keeps its connection under SDK v2 (the news article’s agent)', () => {
    expect(functionEnv(articleConditions(SEEDS.newsTop10), 'default')).toEqual({
      KEEP_ALIVE: 'on',
      LAB_TLS_MAX_VERSION: 'TLSv1.2',
    });
  });
});
