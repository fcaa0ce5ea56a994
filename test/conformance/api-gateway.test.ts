/**
 * The local API's IAM authorization answers as API Gateway does, driven by SigV4 signers the
 * lab does not use itself: curl --aws-sigv4, botocore (SigV4Auth, SigV4QueryAuth) and the npm
 * package aws4. A correctly signed request gets the same answer as one signed by the lab's own
 * signer; each wrong one gets API Gateway's 403, x-amzn-errortype and message.
 *
 * What API Gateway does is documented in
 * - the SigV4 reference: https://docs.aws.amazon.com/IAM/latest/UserGuide/reference_sigv-create-signed-request.html
 * - its troubleshooting page (the scope, clock and mismatch messages):
 *   https://docs.aws.amazon.com/IAM/latest/UserGuide/reference_sigv-troubleshooting.html
 * - API Gateway's IAM authorization: https://docs.aws.amazon.com/apigateway/latest/developerguide/permissions.html
 * and, for the exact strings API Gateway sends, in the threads cited per case.
 */
import http from 'node:http';
import aws4 from 'aws4';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { curlSigV4Example, EXAMPLE_GOV_ID } from '../../local/cli/curl-example';
import { LOCAL_CREDENTIALS } from '../../local/engines/types';
import { LOCAL_CALLER, type RunningLab, startLab } from '../../local/lab';
import { LOCAL_SESSION_TOKEN } from '../../local/lab-defaults';
import { person, rawRequest } from '../support/lab-http';
import { LAB_TEST_CONTEXT } from '../support/lab-test-context';
import { runClient, runPythonClient } from './support/clients';

const SIGV4 = `aws:amz:${LOCAL_CALLER.region}:execute-api`;
const USER = `${LOCAL_CALLER.accessKeyId}:${LOCAL_CALLER.secretAccessKey}`;
const BASE = '/dynamodb/keepalive-on/person';

interface Answer {
  readonly status: number;
  readonly errortype: string | null;
  readonly body: string;
}
const json = (a: Answer) => JSON.parse(a.body) as Record<string, unknown>;
/** The body's shape: its keys, and the keys of the Person and timing block inside. */
function shape(a: Answer): Record<string, string[]> {
  const b = json(a);
  const keys = (v: unknown) => (v && typeof v === 'object' ? Object.keys(v).sort() : []);
  return { body: keys(b), person: keys(b.person), timing: keys(b.timing) };
}

/** What botocore's signer saw and got (test/conformance/clients/api_gateway_sigv4.py). */
interface BotocoreAnswer extends Answer {
  readonly signed_headers: string | null;
  readonly url: string;
}

describe('API Gateway IAM authorization, as outside SigV4 clients see it', () => {
  let lab: RunningLab;
  beforeAll(async () => {
    lab = await startLab({ port: 0, context: LAB_TEST_CONTEXT });
  }, 240_000);
  afterAll(async () => {
    await lab?.stop();
  });

  const url = (path: string) => `${lab.url}${path}`;

  /** The lab's own signer (the load driver's), as the reference answer. */
  async function labSigned(method: string, path: string, body?: string): Promise<Answer> {
    const r = await rawRequest(lab, method, path, body);
    return { status: r.status, errortype: null, body: r.text };
  }

  function botocore(spec: Record<string, unknown>): Promise<BotocoreAnswer> {
    return runPythonClient<BotocoreAnswer>('api_gateway_sigv4.py', [
      JSON.stringify({
        region: LOCAL_CALLER.region,
        access_key: LOCAL_CALLER.accessKeyId,
        secret_key: LOCAL_CALLER.secretAccessKey,
        ...spec,
      }),
    ]);
  }

  /** curl --aws-sigv4 with the lab's caller; `-w` appends the status and error type on their own lines. */
  async function curl(args: string[], sigv4 = SIGV4): Promise<Answer> {
    const r = await runClient('curl', [
      '-s',
      '--aws-sigv4',
      sigv4,
      '--user',
      USER,
      '-w',
      '\n%{http_code}\n%header{x-amzn-errortype}',
      ...args,
    ]);
    const lines = r.stdout.split('\n');
    const errortype = lines.pop() || null;
    const status = Number(lines.pop());
    return { status, errortype, body: lines.join('\n') };
  }

  /** Signs with aws4 (its own canonicalization) and sends exactly what it signed. */
  function viaAws4(
    method: string,
    path: string,
    body?: string,
    opts: {
      headers?: Record<string, string>;
      region?: string;
      tamper?: (h: Record<string, string>) => void;
      /** Sent instead of the signed body (same length, so only the bytes differ). */
      sendBody?: string;
    } = {},
  ): Promise<Answer> {
    const u = new URL(url(path));
    const signed = aws4.sign(
      {
        host: u.host,
        path: `${u.pathname}${u.search}`,
        method,
        body,
        service: 'execute-api',
        region: opts.region ?? LOCAL_CALLER.region,
        headers: { ...(body === undefined ? {} : { 'content-type': 'application/json' }), ...opts.headers },
      },
      { accessKeyId: LOCAL_CALLER.accessKeyId, secretAccessKey: LOCAL_CALLER.secretAccessKey },
    );
    const headers = signed.headers as Record<string, string>;
    opts.tamper?.(headers);
    return new Promise((resolve, reject) => {
      const req = http.request(
        { host: u.hostname, port: u.port, method, path: signed.path, headers },
        (res) => {
          const chunks: Buffer[] = [];
          res.on('data', (c: Buffer) => chunks.push(c));
          res.on('end', () =>
            resolve({
              status: res.statusCode ?? 0,
              errortype: (res.headers['x-amzn-errortype'] as string | undefined) ?? null,
              body: Buffer.concat(chunks).toString('utf8'),
            }),
          );
        },
      );
      req.on('error', reject);
      req.end(opts.sendBody ?? body);
    });
  }

  describe('correct signatures from every signer get the answer the lab signer gets', () => {
    // A Person to read, written with the lab's own signer.
    beforeAll(async () => {
      const created = await labSigned('POST', BASE, JSON.stringify(person('CF-READ')));
      expect(created.status, created.body).toBe(201);
    }, 60_000);

    it('curl --aws-sigv4: GET and POST with a JSON body', async () => {
      const reference = await labSigned('GET', `${BASE}/CF-READ`);
      expect(reference.status).toBe(200);
      const got = await curl([url(`${BASE}/CF-READ`)]);
      expect(got.status, got.body).toBe(200);
      expect(json(got).person).toEqual(json(reference).person);
      expect(shape(got)).toEqual(shape(reference));

      const mine = await labSigned('POST', BASE, JSON.stringify(person('CF-LAB-POST')));
      const posted = await curl([
        '-H',
        'content-type: application/json',
        '--data-binary',
        JSON.stringify(person('CF-CURL-POST')),
        url(BASE),
      ]);
      expect([posted.status, mine.status]).toEqual([201, 201]);
      expect(shape(posted)).toEqual(shape(mine));
      expect((json(posted).person as { GovId: string }).GovId).toBe('CF-CURL-POST');
    }, 60_000);

    it('aws4: GET, POST and a query string, signed over its own canonical request', async () => {
      const reference = await labSigned('GET', `${BASE}/CF-READ`);
      const got = await viaAws4('GET', `${BASE}/CF-READ`);
      expect(got.status, got.body).toBe(200);
      expect(json(got).person).toEqual(json(reference).person);
      const posted = await viaAws4('POST', BASE, JSON.stringify(person('CF-AWS4-POST')));
      expect(posted.status, posted.body).toBe(201);
      expect(shape(posted)).toEqual(shape(await labSigned('POST', BASE, JSON.stringify(person('CF-LAB-2')))));
      // The query route: parameters out of order and with an escape, sorted and re-encoded by both sides.
      const query = '/dynamodb/keepalive-on/person?limit=2&govIdType=Passport';
      const mine = await labSigned('GET', query);
      const theirs = await viaAws4('GET', query);
      expect([theirs.status, mine.status], theirs.body).toEqual([200, 200]);
      expect(shape(theirs)).toEqual(shape(mine));
    }, 60_000);

    it('botocore SigV4Auth: GET, POST, and a path escape signed double-encoded as every service but S3 expects', async () => {
      // https://docs.aws.amazon.com/IAM/latest/UserGuide/reference_sigv-create-signed-request.html
      // ("Each path segment must be URI-encoded twice", except for S3).
      const reference = await labSigned('GET', `${BASE}/CF-READ`);
      const got = await botocore({ method: 'GET', url: url(`${BASE}/CF-READ`) });
      expect(got.status, got.body).toBe(200);
      expect(got.signed_headers).toBe('host;x-amz-date');
      expect(json(got).person).toEqual(json(reference).person);
      const body = JSON.stringify(person('CF-BOTO-POST'));
      const posted = await botocore({ method: 'POST', url: url(BASE), body });
      expect(posted.status, posted.body).toBe(201);
      expect(posted.signed_headers).toBe('content-type;host;x-amz-date');
      // `%2D` is `-` escaped: botocore signs it as `%252D`, and the function reads GovId CF-READ.
      const escaped = await botocore({ method: 'GET', url: url(`${BASE}/CF%2DREAD`) });
      expect(escaped.status, escaped.body).toBe(200);
      expect(json(escaped).person).toEqual(json(reference).person);
    }, 60_000);

    it('botocore SigV4QueryAuth: a presigned URL is accepted as the Authorization header is', async () => {
      // API Gateway accepts SigV4 in the query string as S3 does (the WebSocket API guide signs
      // its connect URL this way): https://docs.aws.amazon.com/IAM/latest/UserGuide/reference_sigv-authentication-methods.html
      const got = await botocore({ method: 'GET', url: url(`${BASE}/CF-READ`), mode: 'query' });
      expect(got.url).toContain('X-Amz-Signature=');
      expect(got.status, got.body).toBe(200);
      expect((json(got).person as { GovId: string }).GovId).toBe('CF-READ');
    }, 60_000);

    it("temporary credentials the lab issued (its functions' key with their session token) are accepted", async () => {
      // Lambda's role credentials carry X-Amz-Security-Token; API Gateway verifies it with the key:
      // https://docs.aws.amazon.com/IAM/latest/UserGuide/reference_sigv-add-signature-request.html
      const got = await botocore({
        method: 'GET',
        url: url(`${BASE}/CF-READ`),
        access_key: LOCAL_CREDENTIALS.accessKeyId,
        secret_key: LOCAL_CREDENTIALS.secretAccessKey,
        token: LOCAL_SESSION_TOKEN,
      });
      expect(got.signed_headers).toContain('x-amz-security-token');
      expect(got.status, got.body).toBe(200);
    }, 60_000);

    it('the exact curl line `npm run local` prints reads a Person', async () => {
      const line = curlSigV4Example(lab.url, lab.assembly.routes);
      expect(line).toMatch(/^curl --aws-sigv4 "aws:amz:us-east-1:execute-api" --user \S+ http:\/\//);
      const path = new URL(line?.split(' ').pop() ?? '').pathname.slice(new URL(lab.url).pathname.length);
      const created = await labSigned(
        'POST',
        path.replace(/\/[^/]+$/, ''),
        JSON.stringify(person(EXAMPLE_GOV_ID)),
      );
      expect([201, 409]).toContain(created.status);
      const r = await runClient('bash', ['-c', line ?? 'false']);
      expect(r.code, r.stderr).toBe(0);
      expect(JSON.parse(r.stdout).person).toMatchObject({ GovId: EXAMPLE_GOV_ID });
    }, 60_000);
  });

  describe("wrong signatures get API Gateway's 403 and error type", () => {
    it('a signature scoped to another region', async () => {
      // {"message":"Credential should be scoped to a valid region, not 'ap-northeast-1'. "} from an
      // AWS_IAM API: https://zenn.dev/hiroga/articles/api-gateway-cross-account-trouble-shooting
      // and the troubleshooting page's "Credential should be scoped to a valid Region, not region-code".
      const got = await botocore({ method: 'GET', url: url(`${BASE}/CF-READ`), region: 'us-west-2' });
      expect(got).toMatchObject({ status: 403, errortype: 'InvalidSignatureException' });
      expect(json(got)).toEqual({
        message: "Credential should be scoped to a valid region, not 'us-west-2'. ",
      });
      const viaCurl = await curl([url(`${BASE}/CF-READ`)], 'aws:amz:eu-west-1:execute-api');
      expect(viaCurl).toMatchObject({ status: 403, errortype: 'InvalidSignatureException' });
      expect(json(viaCurl)).toEqual({
        message: "Credential should be scoped to a valid region, not 'eu-west-1'. ",
      });
    }, 60_000);

    it('a signature scoped to another service', async () => {
      // InvalidSignatureException "Credential should be scoped to correct service: 'execute-api'. "
      // from an execute-api endpoint: https://github.com/aws/aws-sdk-js-v3/issues/1831
      const got = await botocore({ method: 'GET', url: url(`${BASE}/CF-READ`), service: 'lambda' });
      expect(got).toMatchObject({ status: 403, errortype: 'InvalidSignatureException' });
      expect(json(got)).toEqual({
        message: "Credential should be scoped to correct service: 'execute-api'. ",
      });
    }, 60_000);

    it('a signature that leaves Host out of SignedHeaders', async () => {
      // "'Host' or ':authority' must be a 'SignedHeader' in the AWS Authorization."
      // https://github.com/aws/aws-sdk-php/issues/2469 (and API Gateway's older "'Host' must be a
      // 'SignedHeader'...", https://github.com/NetSPI/AWSSigner/issues/3)
      const got = await botocore({ method: 'GET', url: url(`${BASE}/CF-READ`), sign_host: false });
      expect(got.signed_headers).toBe('x-amz-date');
      expect(got).toMatchObject({ status: 403, errortype: 'IncompleteSignatureException' });
      expect(json(got)).toEqual({
        message: "'Host' or ':authority' must be a 'SignedHeader' in the AWS Authorization.",
      });
    }, 60_000);

    it('a security token the lab did not issue, and a key it does not know', async () => {
      // 403, x-amzn-ErrorType: UnrecognizedClientException, "The security token included in the
      // request is invalid." from API Gateway: https://github.com/badslug/Paw-AWSSignature4DynamicValue/issues/5
      const fake = await botocore({ method: 'GET', url: url(`${BASE}/CF-READ`), token: 'FwoGZXIvYXdzEFAKE' });
      expect(fake.signed_headers).toContain('x-amz-security-token');
      expect(fake).toMatchObject({ status: 403, errortype: 'UnrecognizedClientException' });
      expect(json(fake)).toEqual({ message: 'The security token included in the request is invalid.' });
      // The functions' key without its token is not the temporary credential the lab issued.
      const tokenless = await botocore({
        method: 'GET',
        url: url(`${BASE}/CF-READ`),
        access_key: LOCAL_CREDENTIALS.accessKeyId,
        secret_key: LOCAL_CREDENTIALS.secretAccessKey,
      });
      expect(tokenless).toMatchObject({ status: 403, errortype: 'UnrecognizedClientException' });
      const stranger = await botocore({
        method: 'GET',
        url: url(`${BASE}/CF-READ`),
        access_key: 'AKIDEXAMPLE',
      });
      expect(stranger).toMatchObject({ status: 403, errortype: 'UnrecognizedClientException' });
    }, 60_000);

    it('a tampered signature, and a body changed after signing', async () => {
      // "The request signature we calculated does not match the signature you provided. Check your
      // AWS Secret Access Key and signing method. Consult the service documentation for details."
      // from API Gateway: https://github.com/okigan/awscurl/issues/27; the answer carries the
      // canonical request and string to sign (troubleshooting page, "Canonicalization errors").
      const flipped = await viaAws4('GET', `${BASE}/CF-READ`, undefined, {
        tamper: (h) => {
          h.Authorization = h.Authorization.replace(/.$/, (c) => (c === '0' ? '1' : '0'));
        },
      });
      expect(flipped).toMatchObject({ status: 403, errortype: 'InvalidSignatureException' });
      const message = json(flipped).message as string;
      expect(message).toMatch(
        /^The request signature we calculated does not match the signature you provided\. Check your AWS Secret Access Key and signing method\. Consult the service documentation for details\./,
      );
      expect(message).toContain(
        `The Canonical String for this request should have been\n'GET\n/lab${BASE}/CF-READ\n`,
      );
      const swapped = await viaAws4('POST', BASE, JSON.stringify(person('CF-SWAP')), {
        sendBody: JSON.stringify(person('CF-SWAQ')),
      });
      expect(swapped).toMatchObject({ status: 403, errortype: 'InvalidSignatureException' });
    }, 60_000);

    it('x-amz-content-sha256: UNSIGNED-PAYLOAD does not stand for the body: API Gateway hashes what it received', async () => {
      // execute-api answered a signature mismatch to a client that signed UNSIGNED-PAYLOAD:
      // https://github.com/aws/aws-sdk-js-v3/issues/308
      const got = await viaAws4('POST', BASE, JSON.stringify(person('CF-UNSIGNED')), {
        headers: { 'X-Amz-Content-Sha256': 'UNSIGNED-PAYLOAD' },
      });
      expect(got).toMatchObject({ status: 403, errortype: 'InvalidSignatureException' });
    }, 60_000);

    it('a date more than 5 minutes old, or ahead', async () => {
      // "Signature expired: 20201027T123008Z is now earlier than 20201027T125507Z (20201027T130007Z
      // - 5 min.)" from an IAM-authorized API: https://github.com/mhart/aws4/issues/118;
      // "Signature not yet current: ... is still later than ... (... + 5 min.)": troubleshooting page.
      const amz = (ms: number) => new Date(Date.now() + ms).toISOString().replace(/[:-]|\.\d{3}/g, '');
      const old = await viaAws4('GET', `${BASE}/CF-READ`, undefined, {
        headers: { 'X-Amz-Date': amz(-10 * 60_000) },
      });
      expect(old).toMatchObject({ status: 403, errortype: 'InvalidSignatureException' });
      expect(json(old).message).toMatch(
        /^Signature expired: \d{8}T\d{6}Z is now earlier than \d{8}T\d{6}Z \(\d{8}T\d{6}Z - 5 min\.\)$/,
      );
      const ahead = await viaAws4('GET', `${BASE}/CF-READ`, undefined, {
        headers: { 'X-Amz-Date': amz(10 * 60_000) },
      });
      expect(ahead).toMatchObject({ status: 403, errortype: 'InvalidSignatureException' });
      expect(json(ahead).message).toMatch(
        /^Signature not yet current: \d{8}T\d{6}Z is still later than \d{8}T\d{6}Z \(\d{8}T\d{6}Z \+ 5 min\.\)$/,
      );
    }, 60_000);

    it('a presigned URL used after X-Amz-Expires', async () => {
      // A query-string signature is valid for X-Amz-Expires seconds from X-Amz-Date
      // (https://docs.aws.amazon.com/IAM/latest/UserGuide/reference_sigv-authentication-methods.html);
      // refused as expired, like a stale header signature.
      const got = await botocore({
        method: 'GET',
        url: url(`${BASE}/CF-READ`),
        mode: 'query',
        expires: 1,
        delay: 2.5,
      });
      expect(got.url).toContain('X-Amz-Expires=1');
      expect(got).toMatchObject({ status: 403, errortype: 'InvalidSignatureException' });
      expect(json(got).message).toMatch(/^Signature expired: /);
    }, 60_000);

    it('no signature at all, and an Authorization header that is not SigV4', async () => {
      // "If the API request isn't signed, then you might receive the error: Missing Authentication
      // Token": https://docs.aws.amazon.com/IAM/latest/UserGuide/reference_sigv-troubleshooting.html;
      // with x-amzn-errortype MissingAuthenticationTokenException (the lab's REST API answers the same
      // to an unknown route, as API Gateway does).
      const none = await fetch(url(`${BASE}/CF-READ`));
      expect(none.status).toBe(403);
      expect(none.headers.get('x-amzn-errortype')).toBe('MissingAuthenticationTokenException');
      expect(await none.json()).toEqual({ message: 'Missing Authentication Token' });
      // API Gateway lists what the header lacks and quotes it: https://github.com/aws/chalice/issues/828
      const bearer = await fetch(url(`${BASE}/CF-READ`), { headers: { authorization: 'Bearer abc' } });
      expect(bearer.status).toBe(403);
      expect(bearer.headers.get('x-amzn-errortype')).toBe('IncompleteSignatureException');
      expect(await bearer.json()).toEqual({
        message:
          "Authorization header requires 'Credential' parameter. Authorization header requires 'Signature' parameter. Authorization header requires 'SignedHeaders' parameter. Authorization header requires existence of either a 'X-Amz-Date' or a 'Date' header. Authorization=Bearer abc",
      });
    }, 60_000);
  });
});
