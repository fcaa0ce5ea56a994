/**
 * The service-time part of the network model: a seeded log-normal fitted to a p50 and a p99,
 * drawn per request/response exchange, with the engine's own time inside it (not on top).
 * And the profiles: every one has a figure per target, and the options read them as the lab will.
 */
import { readFileSync } from 'node:fs';
import http from 'node:http';
import https from 'node:https';
import type net from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TARGETS } from '../../core/lab-functions';
import { networkOptions } from '../../local/cli/options';
import { ExchangeClock, startNetworkModel } from '../../local/network/network-model';
import { parseRtt, resolveProfile } from '../../local/network/profile-options';
import { DEFAULT_PROFILE, findProfile, IN_REGION, linkOf, PROFILES } from '../../local/network/profiles';
import { serviceTimeSampler, streamSeed } from '../../local/network/service-time';
import { type CertificatePaths, ensureCertificates } from '../../local/tls/certificates';

function percentile(sorted: readonly number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)];
}

describe('service-time distribution', () => {
  it('draws a log-normal whose p50 and p99 are the spec, from a fixed seed', () => {
    const draw = serviceTimeSampler({ p50Ms: 2.6, p99Ms: 15 }, 42);
    const values = Array.from({ length: 50_000 }, draw).sort((a, b) => a - b);
    expect(percentile(values, 50)).toBeGreaterThan(2.6 * 0.97);
    expect(percentile(values, 50)).toBeLessThan(2.6 * 1.03);
    expect(percentile(values, 99)).toBeGreaterThan(15 * 0.92);
    expect(percentile(values, 99)).toBeLessThan(15 * 1.08);
    expect(values[0]).toBeGreaterThan(0);
  });

  it('repeats a run from the same seed and differs with another', () => {
    const a = Array.from({ length: 20 }, serviceTimeSampler({ p50Ms: 1, p99Ms: 4 }, 7));
    const b = Array.from({ length: 20 }, serviceTimeSampler({ p50Ms: 1, p99Ms: 4 }, 7));
    const c = Array.from({ length: 20 }, serviceTimeSampler({ p50Ms: 1, p99Ms: 4 }, 8));
    expect(a).toEqual(b);
    expect(a).not.toEqual(c);
    expect(streamSeed(1, 'dynamodb')).not.toBe(streamSeed(1, 'redis'));
  });

  it('refuses a spec whose p99 is below its p50, or not positive', () => {
    expect(() => serviceTimeSampler({ p50Ms: 5, p99Ms: 4 }, 1)).toThrow(/p50 <= p99/);
    expect(() => serviceTimeSampler({ p50Ms: 0, p99Ms: 4 }, 1)).toThrow(/0 < p50/);
  });
});

describe('network profiles', () => {
  it('give every target a round trip, and cite each service time', () => {
    for (const profile of PROFILES) {
      for (const t of TARGETS) {
        const link = linkOf(profile, t);
        expect(link.rttMs).toBeGreaterThanOrEqual(0);
        if (link.serviceTime) {
          expect(link.serviceTime.p99Ms).toBeGreaterThanOrEqual(link.serviceTime.p50Ms);
          expect(link.sources.length).toBeGreaterThan(0);
          expect(link.serviceTime.derivation).not.toBe('');
        }
      }
    }
    expect(findProfile(DEFAULT_PROFILE)).toBeDefined();
    // The old model stays, as it was: 8 ms everywhere, no service time.
    const old = findProfile('uniform-8ms');
    expect(TARGETS.map((t) => old && linkOf(old, t).rttMs)).toEqual(TARGETS.map(() => 8));
    expect(TARGETS.some((t) => old && linkOf(old, t).serviceTime)).toBe(false);
  });

  it('take --rtt for every target or per target, and refuse what is not one', () => {
    expect(parseRtt('2')).toEqual({ rttMs: 2 });
    expect(parseRtt('dynamodb=0.5,redis=0.3')).toEqual({ rttByTarget: { dynamodb: 0.5, redis: 0.3 } });
    const p = resolveProfile({ profile: 'in-region', rttMs: 4, rttByTarget: { redis: 0.5 } });
    expect(linkOf(p, 'dynamodb').rttMs).toBe(4);
    expect(linkOf(p, 'redis').rttMs).toBe(0.5);
    // The service time stays the target's own under the profile.
    expect(linkOf(p, 'dynamodb').serviceTime).toEqual(linkOf(IN_REGION, 'dynamodb').serviceTime);
    expect(() => networkOptions(undefined, 'mongodb=1')).toThrow(/--rtt: "mongodb=1" is not target=MS/);
    expect(() => networkOptions(undefined, 'dynamodb=-1')).toThrow(/--rtt: "-1"/);
    // One bound for the option and for a lab started from code.
    expect(parseRtt('1000')).toEqual({ rttMs: 1000 });
    expect(() => parseRtt('1000.5')).toThrow(/--rtt: "1000.5" is not a round trip of 0..1000 ms/);
    expect(() => resolveProfile({ rttByTarget: { qldb: 1001 } })).toThrow(/must be 0..1000 ms, got 1001/);
    expect(() => networkOptions('lan', undefined)).toThrow(
      /--profile: unknown network profile "lan"; known: in-region/,
    );
  });
});

describe('service time in the model', () => {
  let certs: CertificatePaths;
  let engineDelayMs = 0;
  let engine: http.Server;
  let requests = 0;

  beforeAll(async () => {
    certs = await ensureCertificates(join(tmpdir(), 'lab-service-time-test-certs'));
    engine = http.createServer((_req, res) => {
      requests += 1;
      setTimeout(() => res.end('ok'), engineDelayMs);
    });
    await new Promise<void>((resolve) => engine.listen(0, '127.0.0.1', resolve));
  });
  afterAll(async () => {
    await new Promise((resolve) => engine.close(resolve));
  });

  async function timedGets(serviceMs: number, n: number): Promise<number[]> {
    const model = await startNetworkModel({
      upstreamHost: '127.0.0.1',
      upstreamPort: (engine.address() as net.AddressInfo).port,
      rttMs: 0,
      // p99 = p50: a constant, so the test reads the hold itself.
      serviceTime: { p50Ms: serviceMs, p99Ms: serviceMs },
      tls: certs,
    });
    const agent = new https.Agent({ keepAlive: true, ca: readFileSync(certs.caCertPath) });
    try {
      const times: number[] = [];
      for (let i = 0; i < n; i++) {
        const start = performance.now();
        await new Promise<void>((resolve, reject) => {
          https
            .get(`${model.url}/`, { agent }, (res) => {
              res.resume();
              res.on('end', () => resolve());
            })
            .on('error', reject);
        });
        times.push(performance.now() - start);
      }
      return times;
    } finally {
      agent.destroy();
      await model.close();
    }
  }

  it('holds each response until the drawn service time has passed', async () => {
    engineDelayMs = 0;
    const before = requests;
    const times = await timedGets(40, 6);
    expect(requests - before).toBe(6);
    // Delays only add: every exchange took at least its service time, the first also its handshake.
    for (const t of times) expect(t).toBeGreaterThanOrEqual(39);
  });

  it("counts the engine's own time inside the service time, not on top", async () => {
    // The arithmetic on a clock the test moves: wall time on a loaded host cannot tell 100 ms from 150.
    let now = 1000;
    const clock = new ExchangeClock(
      () => 50,
      () => now,
    );
    expect(clock.request()).toBe(0);
    now += 20; // the engine answers after 20 ms: held for the other 30
    expect(clock.response()).toBe(30);
    expect(clock.response()).toBe(0); // later bytes of the same response: not held again
    clock.request();
    now += 100; // the engine took 100 ms, longer than the 50 drawn: nothing added on top
    expect(clock.response()).toBe(0);
    // End to end, the hold and the engine's time overlap: each exchange still takes the engine's 100 ms.
    engineDelayMs = 100;
    const times = await timedGets(50, 3);
    expect(Math.min(...times)).toBeGreaterThanOrEqual(99);
  });
});
