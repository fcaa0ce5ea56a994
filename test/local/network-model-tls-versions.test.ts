/**
 * Every TLS front (the network model in front of each engine: HTTPS for DynamoDB and QLDB, rediss
 * for Redis, PostgreSQL's SSLRequest then TLS for DSQL) accepts TLS 1.2 and TLS 1.3, as AWS
 * endpoints do: "TLS 1.2 to become the minimum TLS protocol level for all AWS API endpoints"
 * (https://aws.amazon.com/blogs/security/tls-1-2-required-for-aws-endpoints/); "AWS SDK for
 * JavaScript v3 automatically negotiates the highest supported TLS version for a given AWS
 * service endpoint" (https://docs.aws.amazon.com/sdk-for-javascript/v3/developer-guide/enforcing-tls.html).
 * A client pinned to TLS 1.2 (curl --tls-max 1.2, Node's maxVersion) gets its answer; an unpinned
 * one negotiates 1.3; the versions the lab's header names are the ones negotiated.
 */
import { once } from 'node:events';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import http from 'node:http';
import type net from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import tls from 'node:tls';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type NetworkModel, type StartTls, startNetworkModel } from '../../local/network/network-model';
import { negotiate, negotiatedVersions, tlsLabels } from '../../local/network/tls-versions';
import { type CertificatePaths, ensureCertificates } from '../../local/tls/certificates';
import { runClient } from '../conformance/support/clients';

let certDir: string;
let certs: CertificatePaths;
let ca: Buffer;
let upstream: http.Server;
const models = new Map<StartTls, NetworkModel>();

beforeAll(async () => {
  certDir = await mkdtemp(join(tmpdir(), 'tls-versions-test-'));
  certs = await ensureCertificates(certDir);
  ca = await readFile(certs.caCertPath);
  upstream = http.createServer((_req, res) => res.end('ok'));
  upstream.listen(0, '127.0.0.1');
  await once(upstream, 'listening');
  const upstreamPort = (upstream.address() as net.AddressInfo).port;
  for (const startTls of ['immediate', 'postgres'] as const) {
    models.set(
      startTls,
      await startNetworkModel({ upstreamHost: '127.0.0.1', upstreamPort, rttMs: 2, tls: certs, startTls }),
    );
  }
});

afterAll(async () => {
  for (const model of models.values()) await model.close();
  upstream?.closeAllConnections();
  upstream?.close();
  await rm(certDir, { recursive: true, force: true });
});

const model = (startTls: StartTls): NetworkModel => {
  const found = models.get(startTls);
  if (!found) throw new Error(`no ${startTls} model`);
  return found;
};

describe('TLS fronts accept TLS 1.2 and 1.3', () => {
  it('curl pinned to TLS 1.2 gets its HTTPS answer, and curl unpinned negotiates TLS 1.3', async () => {
    const curl = (pin: string[]) =>
      runClient(
        'curl',
        ['-sS', '--cacert', certs.caCertPath, ...pin, '-w', ' %{http_code}', `${model('immediate').url}/`],
        {
          timeoutMs: 30_000,
        },
      );
    const pinned = await curl(['--tls-max', '1.2', '-v']);
    expect(pinned.stdout).toBe('ok 200');
    expect(pinned.stderr).toMatch(/SSL connection using TLSv1\.2/);
    const unpinned = await curl(['-v']);
    expect(unpinned.stdout).toBe('ok 200');
    expect(unpinned.stderr).toMatch(/SSL connection using TLSv1\.3/);
  });

  it("Node's tls pinned to TLS 1.2 connects to the HTTPS front (DynamoDB, QLDB, Redis) and the PostgreSQL one (DSQL)", async () => {
    for (const startTls of ['immediate', 'postgres'] as const) {
      expect(await negotiate(model(startTls).url, 'TLSv1.2', { ca, startTls })).toBe('TLSv1.2');
      expect(await negotiate(model(startTls).url, 'TLSv1.3', { ca, startTls })).toBe('TLSv1.3');
    }
  });

  it('a client that offers only TLS 1.1 is refused (AWS endpoints take 1.2 at least)', async () => {
    const socket = tls.connect({
      host: '127.0.0.1',
      port: model('immediate').port,
      ca,
      minVersion: 'TLSv1',
      maxVersion: 'TLSv1.1',
    });
    const [err] = (await once(socket, 'error')) as [Error];
    expect(err.message).toMatch(/protocol|version|alert/i);
  });

  it('the run header names the versions negotiated', async () => {
    const versions = await negotiatedVersions(model('postgres').url, {
      caCertPath: certs.caCertPath,
      startTls: 'postgres',
    });
    expect(versions).toEqual(['TLSv1.2', 'TLSv1.3']);
    expect(tlsLabels(versions)).toBe('TLS 1.2 and 1.3');
    expect(tlsLabels(['TLSv1.3', 'TLSv1.3'])).toBe('TLS 1.3');
  });
});
