/**
 * What the local API's IAM check costs per request, printed, never asserted: `npm run bench`
 * section 10, or `npx tsx bench/sigv4-verify.ts [N]` alone. It times the verifier
 * (local/auth/sigv4.ts: rebuild the client's canonical request, hash it once, one HMAC (two
 * one-shot SHA-256 hashes over the signing key's pads, cached per secret, day, region and
 * service), constant-time compare; synchronous)
 * against one signature by the lab's own signer over the same request, which is what the
 * verifier did before it compared signatures instead of re-signing. Rounds alternate so machine
 * load falls on both; the median of rounds 2..6 is printed, as wall time and as this process's
 * CPU time (on a loaded machine the CPU figure is the steadier one).
 */
import { performance } from 'node:perf_hooks';
import { pathToFileURL } from 'node:url';
import { type ReceivedRequest, signRequest, verifyRequest } from '../local/auth/sigv4';
import { signerFor, toHttpRequest } from '../local/auth/sigv4-signer.mjs';
import { LOCAL_CALLER } from '../local/lab-defaults';

const url = 'http://127.0.0.1:3100/lab/dynamodb/keepalive-on/person';
const body = JSON.stringify({
  GovId: 'AB-1',
  FirstName: 'Grace',
  LastName: 'Hopper',
  DOB: '1906-12-09',
  GovIdType: 'Passport',
});
const headers = { 'content-type': 'application/json' };

export interface SigV4Cost {
  readonly verifyUs: number;
  readonly verifyCpuUs: number;
  readonly resignUs: number;
}

export async function sigv4VerifyCost(n: number): Promise<SigV4Cost> {
  const signed = await signRequest({ method: 'POST', url, headers, body }, LOCAL_CALLER, LOCAL_CALLER.region);
  // As the API server hands it over: a Map by lower-case name, every value in a list, the body a Buffer.
  const received: ReceivedRequest = {
    method: 'POST',
    target: new URL(url).pathname,
    headers: new Map(
      Object.entries({ host: '127.0.0.1:3100', ...headers, ...signed }).map(([k, v]) => [
        k.toLowerCase(),
        [v],
      ]),
    ),
    body: Buffer.from(body),
  };
  const authority = { region: LOCAL_CALLER.region, principals: [LOCAL_CALLER] };
  if (!verifyRequest(received, authority).ok) throw new Error('the verifier refused the lab signer');
  const date = new Date();
  const signer = signerFor(LOCAL_CALLER, LOCAL_CALLER.region);
  const rounds = { verify: [] as number[], cpu: [] as number[], resign: [] as number[] };
  for (let round = 0; round < 6; round++) {
    const c = process.cpuUsage();
    let t = performance.now();
    for (let i = 0; i < n; i++) verifyRequest(received, authority);
    rounds.verify.push(((performance.now() - t) / n) * 1000);
    const used = process.cpuUsage(c);
    rounds.cpu.push((used.user + used.system) / n);
    t = performance.now();
    for (let i = 0; i < n; i++)
      await signer.sign(toHttpRequest({ method: 'POST', url, headers, body }, date), { signingDate: date });
    rounds.resign.push(((performance.now() - t) / n) * 1000);
  }
  const median = (a: number[]) => a.slice(1).sort((x, y) => x - y)[2];
  return {
    verifyUs: median(rounds.verify),
    verifyCpuUs: median(rounds.cpu),
    resignUs: median(rounds.resign),
  };
}

export function formatSigV4Cost(c: SigV4Cost): string {
  return `verify ${c.verifyUs.toFixed(1)} us wall, ${c.verifyCpuUs.toFixed(1)} us CPU (${(c.verifyUs / 1000).toFixed(3)} ms); one re-signature by the lab's signer ${c.resignUs.toFixed(1)} us`;
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  const n = Number(process.argv[2] ?? 5000);
  void sigv4VerifyCost(n).then((c) =>
    console.log(`SigV4 check per request (POST, ${n} x 5 rounds): ${formatSigV4Cost(c)}`),
  );
}
