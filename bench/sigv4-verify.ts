/**
 * `npx tsx bench/sigv4-verify.ts [N]`: what the local API's IAM check costs per request, printed,
 * never asserted. It times the verifier (local/auth/sigv4.ts: rebuild the client's canonical
 * request, one HMAC with a cached signing key, constant-time compare) against one signature by the
 * lab's own signer over the same request, which is what the verifier did before it compared
 * signatures instead of re-signing (and re-signing cost about that plus its string compare).
 * Rounds alternate so machine load falls on both; the median of rounds 2..6 is printed.
 */
import { performance } from 'node:perf_hooks';
import { type ReceivedRequest, signRequest, verifyRequest } from '../local/auth/sigv4';
import { signerFor, toHttpRequest } from '../local/auth/sigv4-signer.mjs';
import { LOCAL_CALLER } from '../local/lab-defaults';

const n = Number(process.argv[2] ?? 5000);
const url = 'http://127.0.0.1:3100/lab/dynamodb/keepalive-on/person';
const body = JSON.stringify({
  GovId: 'AB-1',
  FirstName: 'Grace',
  LastName: 'Hopper',
  DOB: '1906-12-09',
  GovIdType: 'Passport',
});
const headers = { 'content-type': 'application/json' };

async function main(): Promise<void> {
  const signed = await signRequest({ method: 'POST', url, headers, body }, LOCAL_CALLER, LOCAL_CALLER.region);
  const received: ReceivedRequest = {
    method: 'POST',
    target: new URL(url).pathname,
    headers: { host: '127.0.0.1:3100', ...headers, ...signed },
    body,
  };
  const authority = { region: LOCAL_CALLER.region, principals: [LOCAL_CALLER] };
  if (!verifyRequest(received, authority).ok) throw new Error('the verifier refused the lab signer');
  const date = new Date();
  const signer = signerFor(LOCAL_CALLER, LOCAL_CALLER.region);
  const rounds: { verify: number[]; resign: number[] } = { verify: [], resign: [] };
  for (let round = 0; round < 6; round++) {
    let t = performance.now();
    for (let i = 0; i < n; i++) verifyRequest(received, authority);
    rounds.verify.push(((performance.now() - t) / n) * 1000);
    t = performance.now();
    for (let i = 0; i < n; i++)
      await signer.sign(toHttpRequest({ method: 'POST', url, headers, body }, date), { signingDate: date });
    rounds.resign.push(((performance.now() - t) / n) * 1000);
  }
  const median = (a: number[]) => a.slice(1).sort((x, y) => x - y)[2];
  console.log(
    `SigV4 check per request (POST, ${n} x 5 rounds): verify ${median(rounds.verify).toFixed(1)} us, one re-signature by the lab's signer ${median(rounds.resign).toFixed(1)} us`,
  );
}

void main();
