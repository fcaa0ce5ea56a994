/**
 * The aurorapg target's local stand-in (targets/aurorapg/front.ts: the lab's PostgreSQL 16
 * behind the network model and the front) driven by clients the lab does not use: psql (TLS
 * verify-full against the lab CA, simple query protocol) with passwords made by botocore's
 * generate_db_auth_token. Each case says what Aurora does and where that is written:
 * - IAM: https://docs.aws.amazon.com/AmazonRDS/latest/AuroraUserGuide/UsingWithRDS.IAMDBAuth.Connecting.html
 *   (a token is the password of a user granted rds_iam, valid 15 minutes)
 * - SSL: https://docs.aws.amazon.com/AmazonRDS/latest/AuroraUserGuide/AuroraPostgreSQL.Security.html
 *   (rds.force_ssl: connections must use TLS)
 * - PAUSE: https://docs.aws.amazon.com/AmazonRDS/latest/AuroraUserGuide/aurora-serverless-v2-auto-pause.html
 *   (no connection for SecondsUntilAutoPause: paused; the next connection waits for the resume,
 *   about 15 s after less than 24 h paused, longer after more)
 * - DEFAULTS: Aurora PostgreSQL keeps PostgreSQL's read committed default isolation.
 */
import { execFileSync } from 'node:child_process';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PROJECT_ROOT } from '../../../core/paths';
import { makeGetHandler } from '../../../lambda/shared/handlers';
import { DB_DEADLINE_MS } from '../../../lambda/shared/http-client';
import {
  findPostgresBin,
  type PostgresEngine,
  socketClient,
  startPostgres,
} from '../../../local/engines/postgres';
import { LOCAL_CREDENTIALS, LOCAL_REGION } from '../../../local/engines/types';
import { type NetworkModel, startNetworkModel } from '../../../local/network/network-model';
import { ensureCertificates } from '../../../local/tls/certificates';
import { type AuroraFront, startAuroraFront } from '../../../targets/aurorapg/front';
import { ResumeModel } from '../../../targets/aurorapg/resume-model';
import { ensureSchema } from '../../../targets/aurorapg/schema';
import { createAuroraStore } from '../../../targets/aurorapg/store';
import { runClient, venvPython } from '../../conformance/support/clients';
import { getEvent } from '../../support/events';
import { setupTask } from '../../support/shared-engines';
import { describeTopStories } from '../../support/top-stories-contract';
import { describeWorkloads } from '../../support/workload-contract';

const HOST = 'localhost';
const MASTER = { user: 'labadmin', password: 'local-master-password' };
/** The resume this file charges: short, so a case waits a moment, not Aurora's 15 s. */
const RESUME_MS = 1500;
const AUTO_PAUSE_S = 1;

let engine: PostgresEngine;
let front: AuroraFront;
let model: NetworkModel;
let caPath: string;
let socketDir: string;
let ca: Buffer;

const sdkEnv = {
  AWS_ACCESS_KEY_ID: LOCAL_CREDENTIALS.accessKeyId,
  AWS_SECRET_ACCESS_KEY: LOCAL_CREDENTIALS.secretAccessKey,
  AWS_DEFAULT_REGION: LOCAL_REGION,
  AWS_CONFIG_FILE: '/dev/null',
  AWS_SHARED_CREDENTIALS_FILE: '/dev/null',
};

async function token(user: string, env: Record<string, string> = {}): Promise<string> {
  await setupTask('conformance-clients');
  const r = await runClient(
    venvPython(),
    [join(PROJECT_ROOT, 'test/targets/aurorapg/rds_token.py'), HOST, String(model.port), user],
    { env: { ...sdkEnv, ...env } },
  );
  if (r.code !== 0) throw new Error(`rds_token.py: ${r.stderr}`);
  return r.stdout.trim();
}

interface Psql {
  code: number;
  stdout: string;
  stderr: string;
  /** The SQLSTATE is printed for a statement's error only, not for a refused connection. */
  error?: { code?: string; message: string };
}

async function psql(sql: string, user: string, password: string, sslmode = 'verify-full'): Promise<Psql> {
  const r = await runClient(
    'psql',
    ['-X', '-q', '-A', '-t', '-v', 'ON_ERROR_STOP=1', '-v', 'VERBOSITY=verbose', '-c', sql],
    {
      env: {
        PGHOST: HOST,
        PGPORT: String(model.port),
        PGUSER: user,
        PGPASSWORD: password,
        PGDATABASE: 'postgres',
        PGSSLMODE: sslmode,
        PGSSLROOTCERT: caPath,
        PGCONNECT_TIMEOUT: '10',
      },
    },
  );
  const m = /(?:ERROR|FATAL):\s+(?:([0-9A-Z]{5}): )?(.*)/.exec(r.stderr);
  return { ...r, ...(m ? { error: { ...(m[1] ? { code: m[1] } : {}), message: m[2].trim() } } : {}) };
}

beforeAll(async () => {
  if (!findPostgresBin())
    execFileSync('bash', [join(PROJECT_ROOT, 'scripts/ensure-postgres.sh')], { stdio: 'inherit' });
  const certs = await ensureCertificates(join(PROJECT_ROOT, '.cache', 'tls'));
  caPath = certs.caCertPath;
  ca = await readFile(caPath);
  socketDir = await mkdtemp(join(tmpdir(), 'lab-pgsock-'));
  engine = await startPostgres({ socketDir });
  // What the local target sets up (targets/aurorapg/local.ts): rds_iam and the master user.
  const admin = socketClient(socketDir);
  await admin.connect();
  await admin.query(`CREATE ROLE rds_iam NOLOGIN; CREATE ROLE ${MASTER.user} LOGIN CREATEROLE`);
  await admin.query(
    `GRANT rds_iam TO ${MASTER.user} WITH ADMIN OPTION; ALTER DATABASE postgres OWNER TO ${MASTER.user}`,
  );
  await admin.end();
  front = await startAuroraFront({
    backendSocket: engine.socketPath,
    expectedHost: HOST,
    credentials: [LOCAL_CREDENTIALS],
    master: MASTER,
    resume: { autoPauseS: AUTO_PAUSE_S, shortMs: RESUME_MS, longMs: 2 * RESUME_MS },
  });
  model = await startNetworkModel({
    upstreamHost: '127.0.0.1',
    upstreamPort: front.port,
    rttMs: 0,
    tls: certs,
    startTls: 'postgres',
  });
  // The schema custom resource's own statements, as the master user (schema.ts).
  const master = socketClient(socketDir, MASTER.user);
  await master.connect();
  await ensureSchema(master, 'lab_app');
  await master.end();
}, 300_000);

afterAll(async () => {
  await model?.close();
  await front?.close();
  await engine?.stop();
  if (socketDir) await rm(socketDir, { recursive: true, force: true });
});

describe('aurorapg locally, through psql with botocore tokens', () => {
  it('logs lab_app in with an IAM token over verified TLS, at read committed (IAM, SSL, DEFAULTS)', async () => {
    const r = await psql('SHOW transaction_isolation', 'lab_app', await token('lab_app'));
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout.trim()).toBe('read committed');
  });

  it('lets lab_app read and write person, and not drop it: the custom resource granted SELECT, INSERT, UPDATE (IAM)', async () => {
    const t = await token('lab_app');
    const ok = await psql(
      "INSERT INTO person (govid, first_name, last_name, dob, govid_type) VALUES ('P-1', 'A', 'B', '2000-01-01', 'Passport') ON CONFLICT DO NOTHING; SELECT govid FROM person WHERE govid = 'P-1'",
      'lab_app',
      t,
    );
    expect(ok.stdout.trim()).toBe('P-1');
    const drop = await psql('DROP TABLE person', 'lab_app', t);
    expect(drop.error?.code).toBe('42501');
  });

  it('refuses a token for another user, a token signed by an unknown key, and a plain password, as a failed PAM login (IAM)', async () => {
    const other = await psql('SELECT 1', 'lab_app', await token('someone_else'));
    expect(other.error, other.stderr).toEqual({ message: 'PAM authentication failed for user "lab_app"' });
    const unknown = await psql(
      'SELECT 1',
      'lab_app',
      await token('lab_app', { AWS_ACCESS_KEY_ID: 'AKIAOTHER' }),
    );
    expect(unknown.error?.message, unknown.stderr).toBe('PAM authentication failed for user "lab_app"');
    const plain = await psql('SELECT 1', 'lab_app', 'not-a-token');
    expect(plain.error?.message).toBe('PAM authentication failed for user "lab_app"');
  });

  it('logs the master user in with its password only (the schema resource’s way in)', async () => {
    expect((await psql('SELECT current_user', MASTER.user, MASTER.password)).stdout.trim()).toBe(MASTER.user);
    const wrong = await psql('SELECT 1', MASTER.user, 'wrong');
    expect(wrong.error).toEqual({ message: `password authentication failed for user "${MASTER.user}"` });
  });

  it('refuses a connection without TLS (SSL: rds.force_ssl)', async () => {
    const r = await psql('SELECT 1', 'lab_app', await token('lab_app'), 'disable');
    expect(r.code).not.toBe(0);
  });

  it('pauses after the idle time and holds the next connection for the resume, once, with the lab’s notice (PAUSE)', async () => {
    const t = await token('lab_app');
    await psql('SELECT 1', 'lab_app', t);
    const before = front.stats().resumes;
    // Idle past SecondsUntilAutoPause (this file's 1 s): paused.
    await new Promise((done) => setTimeout(done, AUTO_PAUSE_S * 1000 + 300));
    expect(front.resume.pausedAt()).toBeDefined();
    const started = performance.now();
    const resumed = await psql('SELECT 1', 'lab_app', t);
    const took = performance.now() - started;
    expect(resumed.stdout.trim()).toBe('1');
    expect(took).toBeGreaterThanOrEqual(RESUME_MS);
    // psql prints the lab's notice: the resume is visible to a client.
    expect(resumed.stderr).toMatch(/aurorapg local: resumed from auto-pause after 1500 ms/);
    expect(front.stats().resumes).toBe(before + 1);
    // Running again: the next connection is held for no resume (no notice, no count), not timed.
    const again = await psql('SELECT 1', 'lab_app', t);
    expect(again.stdout.trim()).toBe('1');
    expect(again.stderr).not.toMatch(/resumed from auto-pause/);
    expect(front.stats().resumes).toBe(before + 1);
  }, 60_000);
});

/** A function's store against the stand-in: lab_app, IAM tokens signed with the lab's key, TLS to the lab CA. */
const functionStore = (keepAlive: 'on' | 'off' = 'on') =>
  createAuroraStore({
    host: HOST,
    port: model.port,
    user: 'lab_app',
    region: LOCAL_REGION,
    keepAlive,
    tls: { ca },
    credentials: LOCAL_CREDENTIALS,
  });

describe('aurorapg workloads: the same statuses, validation and timing block as every target', () => {
  // Warm, keep-alive on: every operation is one statement, five frontend messages
  // (Parse, Bind, Describe, Execute, Sync), as on the dsql target's client.
  describeWorkloads(() => ({
    name: 'aurorapg',
    store: () => functionStore('on'),
    warm: { overwrite: 5, overwriteMissing: 5, update: 5, updateMissing: 5, query: 5 },
  }));
  describeTopStories(() => ({
    name: 'aurorapg',
    store: () => functionStore('on'),
    warm: { view: 5, viewMissing: 5, top10: 5 },
  }));
});

describe('a resume longer than the lab’s 5 s database deadline (PAUSE)', () => {
  it('still answers: the store bounds its calls with its own 25 s deadline, and the call records the wait', async () => {
    // A second writer that is paused from the start (no connection yet, 0 s to pause) and
    // resumes in 6 s: longer than DB_DEADLINE_MS, as Aurora's 15 s resume is.
    const slowFront = await startAuroraFront({
      backendSocket: engine.socketPath,
      expectedHost: HOST,
      credentials: [LOCAL_CREDENTIALS],
      master: MASTER,
      resume: { autoPauseS: 0, shortMs: 6000 },
    });
    const certs = await ensureCertificates(join(PROJECT_ROOT, '.cache', 'tls'));
    const slowModel = await startNetworkModel({
      upstreamHost: '127.0.0.1',
      upstreamPort: slowFront.port,
      rttMs: 0,
      tls: certs,
      startTls: 'postgres',
    });
    try {
      const store = createAuroraStore({
        host: HOST,
        port: slowModel.port,
        user: 'lab_app',
        region: LOCAL_REGION,
        keepAlive: 'on',
        tls: { ca },
        credentials: LOCAL_CREDENTIALS,
      });
      expect(store.deadlineMs).toBeGreaterThan(DB_DEADLINE_MS);
      const r = await makeGetHandler(store, 'aurorapg-get')(getEvent('NOBODY'));
      expect(r.statusCode).toBe(404);
      const { timing } = JSON.parse(r.body) as {
        timing: { dbMs: number; newConnection: boolean; billed: { key: string; quantity: number }[] };
      };
      expect(timing.newConnection).toBe(true);
      expect(timing.dbMs).toBeGreaterThanOrEqual(6000);
      expect(timing.billed).toContainEqual({ key: 'aurorapg.resumeMs', quantity: 6000, basis: 'measured' });
      await store.close();
    } finally {
      await slowModel.close();
      await slowFront.close();
    }
  }, 60_000);
});

describe('the resume model (PAUSE)', () => {
  it('charges about 15 s after a pause shorter than 24 h, about 30 s after a longer one, none while running or with a minimum above 0', () => {
    let now = 0;
    const m = new ResumeModel({ autoPauseS: 300, now: () => now });
    now = 299_000;
    expect(m.opened()).toEqual({ holdMs: 0, pausedMs: 0 });
    m.closed();
    now += 300_000 + 60_000;
    expect(m.opened()).toEqual({ holdMs: 15_000, pausedMs: 60_000 });
    // A second connection during the resume waits for the same one.
    now += 5_000;
    expect(m.opened().holdMs).toBe(10_000);
    m.closed();
    m.closed();
    now += 10_000 + 300_000 + 86_400_000;
    expect(m.opened()).toEqual({ holdMs: 30_000, pausedMs: 86_400_000 });
    expect(m.stats()).toEqual({ resumes: 2, heldMs: 45_000 });
    const never = new ResumeModel({ now: () => now });
    now += 10 * 86_400_000;
    expect(never.opened().holdMs).toBe(0);
  });
});
