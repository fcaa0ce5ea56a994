/**
 * `npx tsx bench/redis-secret-init.ts [runs]`: what reading the redis target's URL costs a cold
 * start, two ways, each bundled as the stack bundles it (ESM, minified, node24):
 *
 * - sdk: the bundled Secrets Manager client reads the secret at init (top-level await);
 * - extension (what deploys): no SDK; the first invocation GETs the secret from the AWS
 *   Parameters and Secrets Lambda Extension, which serves INVOKE only.
 *
 * Init over an empty handler (bench/init-over-empty.ts) on the lab's Node 24 environments, with
 * loopback stand-ins for Secrets Manager and the extension. The extension's own start-up inside
 * Lambda (a separate process in the Init phase) cannot be measured here.
 */
import { mkdirSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { build } from 'esbuild';
import { CACHE_DIR, PROJECT_ROOT } from '../core/paths';
import { measureBundle } from '../local/assembly/bundle-size';
import type { AssemblyFunction } from '../local/assembly/cloud-assembly';
import { ExecutionEnvironment } from '../local/host/execution-environment';
import { resolveLambdaNode } from '../local/runtime/lambda-node';
import { startExtensionStandIn } from '../targets/redis/local';
import { buildEmptyHandler, initOverEmpty, median } from './init-over-empty';
import { LAB_BUNDLE_OPTIONS } from './lab-bundle';

const ARN = 'arn:aws:secretsmanager:us-east-1:000000000000:secret:bench-redis-AbCdEf';
const TOKEN = 'bench-token';
const URL_SECRET = 'redis://default:bench-password@127.0.0.1:6379';

/** The SDK way: what targets/redis/secret.ts did before the extension. */
const SDK_ENTRY = `
import { GetSecretValueCommand, SecretsManagerClient } from '@aws-sdk/client-secrets-manager';
import { createLabHttp, MAX_ATTEMPTS } from './lambda/shared/http-client';
import { getPerson, makeHandler } from './lambda/shared/handlers';
import { redisUrlFromSecretString } from './targets/redis/secret';
import { createRedisStore } from './targets/redis/store';
const http = createLabHttp('on');
const client = new SecretsManagerClient({ requestHandler: http.handler, maxAttempts: MAX_ATTEMPTS });
const out = await client.send(new GetSecretValueCommand({ SecretId: process.env.REDIS_SECRET_ARN }));
client.destroy();
const store = createRedisStore({ target: redisUrlFromSecretString(out.SecretString, 'bench'), keepAlive: 'on' });
export const handler = makeHandler(store, 'redis-get', getPerson);
`;

async function bundle(name: string, entry: { file: string } | { contents: string }): Promise<string> {
  const dir = join(CACHE_DIR, 'bench-redis-secret', name);
  mkdirSync(dir, { recursive: true });
  await build({
    ...('file' in entry
      ? { entryPoints: [join(PROJECT_ROOT, entry.file)] }
      : { stdin: { contents: entry.contents, loader: 'ts', resolveDir: PROJECT_ROOT } }),
    ...LAB_BUNDLE_OPTIONS,
    outfile: join(dir, 'index.mjs'),
  });
  return dir;
}

const fnAt = (name: string, assetDir: string, handler = 'index.handler'): AssemblyFunction => ({
  stackName: 'Bench',
  logicalId: name,
  name,
  assetDir,
  handler,
  runtime: 'nodejs24.x',
  memorySize: 512,
  timeoutSeconds: 10,
  environment: {},
  provisionedConcurrency: 0,
});

async function main(): Promise<void> {
  const runs = Number(process.argv[2] ?? 15);
  const node = resolveLambdaNode();
  const extension = await startExtensionStandIn((id) => (id === ARN ? URL_SECRET : undefined), TOKEN);
  let sdkCalls = 0;
  const secretsManager = createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      sdkCalls += 1;
      res.writeHead(200, { 'content-type': 'application/x-amz-json-1.1' });
      res.end(JSON.stringify({ ARN, Name: 'bench-redis', SecretString: URL_SECRET }));
    });
  });
  await new Promise<void>((r) => secretsManager.listen(0, '127.0.0.1', r));
  const env: Record<string, string> = {
    REDIS_SECRET_ARN: ARN,
    KEEP_ALIVE: 'on',
    LAB_FUNCTION: 'redis-get',
    AWS_REGION: 'us-east-1',
    AWS_ACCESS_KEY_ID: 'bench',
    AWS_SECRET_ACCESS_KEY: 'bench',
    AWS_SESSION_TOKEN: TOKEN,
    AWS_ENDPOINT_URL_SECRETS_MANAGER: `http://127.0.0.1:${(secretsManager.address() as AddressInfo).port}`,
    PARAMETERS_SECRETS_EXTENSION_HTTP_PORT: String(extension.port),
    AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: 'true',
  };
  try {
    const sdk = fnAt('redis-get-sdk', await bundle('sdk', { contents: SDK_ENTRY }));
    const ext = fnAt(
      'redis-get-extension',
      await bundle('extension', { file: 'targets/redis/handler.ts' }),
      // Redis's one entry serves every operation; its get is the function measured.
      'index.get',
    );
    const rows = await initOverEmpty(
      [
        { fn: sdk, env },
        { fn: ext, env },
      ],
      { runs, node, emptyDir: await buildEmptyHandler() },
    );
    // The extension way reads on the first invocation instead: time that read alone.
    const firstReadMs: number[] = [];
    for (let i = 0; i < runs; i++) {
      const e = await ExecutionEnvironment.start({
        fn: ext,
        env,
        node,
        initType: 'on-demand',
        onLog: () => {},
        onExit: () => {},
      });
      const t = performance.now();
      // A 400 needs no Redis: what remains is the secret read and the handler.
      await e.invoke('bench', { pathParameters: null, httpMethod: 'GET', body: null }, 10_000);
      firstReadMs.push(performance.now() - t);
      await e.stop();
    }
    console.log(`Node ${node.version}, ${runs} cold starts each, p50 of paired differences`);
    console.log('bundle               zipped KB  init ms  empty ms  init - empty ms');
    for (const [fn, row] of [
      [sdk, rows[0]],
      [ext, rows[1]],
    ] as const) {
      const kb = (measureBundle(fn).zippedBytes / 1024).toFixed(1);
      console.log(
        `${fn.name.padEnd(21)}${kb.padStart(9)}${row.p50.init.toFixed(1).padStart(9)}${row.p50.empty.toFixed(1).padStart(10)}${row.p50.overEmpty.toFixed(1).padStart(17)}`,
      );
    }
    console.log(
      `extension way, first invocation (secret read + 400 answer, no Redis): p50 ${median(firstReadMs).toFixed(1)} ms; SDK stand-in calls ${sdkCalls}, extension reads ${extension.served()}`,
    );
  } finally {
    await extension.close();
    secretsManager.close();
  }
}

await main();
