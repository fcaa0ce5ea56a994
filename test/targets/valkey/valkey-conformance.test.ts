/**
 * The valkey target's local server answers as an ElastiCache Serverless (Valkey) cache does, as
 * redis-cli sees it (a client the lab does not use; its functions use ioredis). It starts only
 * what the target starts: targets/valkey/engine.ts behind the network model's TLS, and connects
 * as the functions do, user id and IAM token, trusting the lab CA. Each case cites the behaviour.
 */
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CACHE_DIR } from '../../../core/paths';
import {
  type NetworkModelProcess,
  startNetworkModelProcess,
} from '../../../local/network/network-model-process';
import { type CertificatePaths, ensureCertificates } from '../../../local/tls/certificates';
import { CREATE_SCRIPT } from '../../../targets/redis/store';
import { KEY_PREFIX, valkeyUserId } from '../../../targets/valkey/access';
import { startValkey, type ValkeyEngine } from '../../../targets/valkey/engine';
import { valkeyTokenSource } from '../../../targets/valkey/token';
import { type ClientResult, runClient } from '../../conformance/support/clients';

const USER = valkeyUserId('LatencyLab-Data');
const key = (k: string) => `${KEY_PREFIX}${k}`;

describe('the valkey stand-in, as redis-cli sees it through the network model', () => {
  let certs: CertificatePaths;
  let engine: ValkeyEngine;
  let model: NetworkModelProcess;
  let token: string;

  beforeAll(async () => {
    certs = await ensureCertificates(join(CACHE_DIR, 'tls'));
    engine = await startValkey({ user: USER, password: 'conformance-admin-pw' });
    model = await startNetworkModelProcess({
      upstreamHost: '127.0.0.1',
      upstreamPort: engine.port,
      rttMs: 2,
      tls: certs,
    });
    // What a function sends: a SigV4-presigned connect request for the cache and the user.
    token = await valkeyTokenSource({
      cacheName: 'latencylab-data-valkey',
      userId: USER,
      region: 'us-east-1',
      credentials: { accessKeyId: 'local', secretAccessKey: 'local' },
    }).token();
  }, 60_000);
  afterAll(async () => {
    await model?.close();
    await engine?.stop();
  });

  const tlsArgs = () => ['--tls', '--cacert', certs.caCertPath, '-h', 'localhost', '-p', String(model.port)];
  /** redis-cli as the functions connect: TLS, the user id and the IAM token as its password. */
  const cli = (
    args: string[],
    opts: { raw?: boolean; user?: string; pass?: string } = {},
  ): Promise<ClientResult> =>
    runClient('redis-cli', [
      ...tlsArgs(),
      '--user',
      opts.user ?? USER,
      '--pass',
      opts.pass ?? token,
      '--no-auth-warning',
      ...(opts.raw ? [] : ['--no-raw']),
      ...args,
    ]);

  it('takes TLS only: verified against the lab CA it answers, plain text gets no reply', async () => {
    // "If you are using ElastiCache Serverless, encryption in transit is always enabled. Make sure
    // that your client is using TLS": https://docs.aws.amazon.com/AmazonElastiCache/latest/dg/wwe-troubleshooting.html
    const ok = await cli(['PING']);
    expect(ok.code, ok.stderr).toBe(0);
    expect(ok.stdout.trim()).toBe('PONG');
    const plain = await runClient(
      'redis-cli',
      [
        '-h',
        'localhost',
        '-p',
        String(model.port),
        '--user',
        USER,
        '--pass',
        token,
        '--no-auth-warning',
        'PING',
      ],
      { timeoutMs: 30_000 },
    );
    expect(plain.stdout).not.toContain('PONG');
  }, 60_000);

  it('authenticates the IAM user with its token (AUTH user token), and refuses the default user', async () => {
    // IAM auth: the token is the password of AUTH (or HELLO) with the user id as the user name:
    // https://docs.aws.amazon.com/AmazonElastiCache/latest/dg/auth-iam.html ("Connecting").
    const r = await runClient('redis-cli', tlsArgs(), {
      input: `PING\nAUTH ${USER} ${token}\nPING\nAUTH default anything\n`,
    });
    expect(r.stdout.split('\n').filter(Boolean)).toEqual([
      'NOAUTH Authentication required.',
      'OK',
      'PONG',
      // The user group's `default` user is off (cdk.ts): WRONGPASS, as for a user that does not exist.
      'WRONGPASS invalid username-password pair or user is disabled.',
    ]);
  }, 60_000);

  it("runs the store's commands on keys under the hash tag, and nothing beyond its access string", async () => {
    // RBAC access strings (ACL rules): keys ~{lab}:* only, no dangerous commands:
    // https://docs.aws.amazon.com/AmazonElastiCache/latest/dg/Clusters.RBAC.html
    const json = JSON.stringify({ GovId: 'VK-1', GovIdType: 'Passport', FirstName: 'Grace' });
    const create = [
      'EVAL',
      CREATE_SCRIPT,
      '2',
      key('person:VK-1'),
      key('persons:by-type:Passport'),
      json,
      '1700000000000',
      'VK-1',
    ];
    expect((await cli(create)).stdout.trim()).toBe('(integer) 1');
    expect((await cli(['GET', key('person:VK-1')], { raw: true })).stdout.trim()).toBe(json);
    expect((await cli(['MGET', key('person:VK-1'), key('person:none')])).stdout.trim()).toBe(
      `1) "${json.replace(/"/g, '\\"')}"\n2) (nil)`,
    );
    expect((await cli(['GET', 'person:VK-1'])).stdout.trim()).toBe(
      '(error) NOPERM this user has no permissions to access one of the keys used as arguments',
    );
    for (const command of [['KEYS', '*'], ['FLUSHALL'], ['CONFIG', 'GET', 'maxmemory']]) {
      expect((await cli(command)).stdout.trim(), command.join(' ')).toMatch(/^\(error\) NOPERM /);
    }
  }, 60_000);

  it('is cluster-mode enabled, every slot on one node, and refuses keys of two slots with CROSSSLOT', async () => {
    // "All serverless caches are cluster mode enabled ... All slots are surfaced to clients as being
    // owned by a single virtual node": https://docs.aws.amazon.com/AmazonElastiCache/latest/dg/RedisConfiguration.html
    // A multi-key command across slots is refused: Valkey cluster specification ("Keys hash tags").
    const admin = { user: 'lab-admin', pass: 'conformance-admin-pw' };
    const info = await cli(['CLUSTER', 'INFO'], { ...admin, raw: true });
    expect(info.stdout).toContain('cluster_state:ok');
    expect(info.stdout).toContain('cluster_slots_assigned:16384');
    expect(info.stdout).toContain('cluster_known_nodes:1');
    expect((await cli(['MGET', 'a', 'b'], admin)).stdout.trim()).toBe(
      "(error) CROSSSLOT Keys in request don't hash to the same slot",
    );
    // The store's keys share one slot through the hash tag.
    const slots = await Promise.all(
      [key('person:VK-1'), key('persons:by-type:Passport'), key('stories:by-views')].map(async (k) =>
        (await cli(['CLUSTER', 'KEYSLOT', k], { ...admin, raw: true })).stdout.trim(),
      ),
    );
    expect(new Set(slots).size).toBe(1);
  }, 60_000);
});
