/**
 * The environments run on Lambda's Node (24) and write Lambda's platform lines: INIT_START,
 * START with the invoked version, INIT_REPORT for a failed init with Lambda's error type.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { type AssemblyFunction, readAssembly } from '../../local/assembly/cloud-assembly';
import { defaultLambdaNode, ExecutionEnvironment } from '../../local/host/execution-environment';
import { FunctionPool, type Invocation } from '../../local/host/function-pool';
import { FIRST_PUBLISHED_VERSION, invokedVersion } from '../../local/host/lambda-version';
import { resolveLambdaNode } from '../../local/runtime/lambda-node';
import { parseLambdaLine } from '../../runs/lambda-log-parser';
import { synthLab } from '../support/synth';

const root = mkdtempSync(join(tmpdir(), 'lab-runtime-'));
afterAll(() => rmSync(root, { recursive: true, force: true }));

/** A fresh bundle folder holding one index.mjs. */
function bundleDir(name: string, code: string): string {
  const dir = mkdtempSync(join(root, `${name}-`));
  writeFileSync(join(dir, 'index.mjs'), code);
  return dir;
}

const versionDir = bundleDir(
  'version',
  `console.log('init done');
export const handler = async (_event, context) => ({ statusCode: 200, body: JSON.stringify({
  version: process.version,
  // RegExp.escape is new in Node 24: a bundle that uses it works in Lambda, not on Node 20.
  regExpEscape: typeof RegExp.escape,
  functionVersion: context.functionVersion,
  envVersion: process.env.AWS_LAMBDA_FUNCTION_VERSION,
  functionName: context.functionName,
  memoryLimitInMB: context.memoryLimitInMB,
  requestId: context.awsRequestId,
}) });`,
);

const fn = (over: Partial<AssemblyFunction> = {}): AssemblyFunction => ({
  stackName: 'Test',
  logicalId: 'Fn',
  name: 'runtime-fn',
  assetDir: versionDir,
  handler: 'index.handler',
  runtime: 'nodejs24.x',
  memorySize: 256,
  timeoutSeconds: 10,
  environment: {},
  provisionedConcurrency: 0,
  ...over,
});

const pools: FunctionPool[] = [];
function pool(
  over: Partial<AssemblyFunction> = {},
  opts: { node?: string; version?: string; region?: string } = {},
) {
  const lines: string[] = [];
  const p = new FunctionPool({
    fn: fn(over),
    env: { AWS_REGION: opts.region ?? 'us-east-1' },
    maxEnvironments: 3,
    log: (l) => lines.push(l),
    node: opts.node ? resolveLambdaNode(opts.node) : undefined,
    version: opts.version,
  });
  pools.push(p);
  return { p, lines };
}
afterEach(async () => {
  await Promise.all(pools.splice(0).map((p) => p.stop()));
});

const body = (r: Invocation) => (r.ok ? JSON.parse((r.response as { body: string }).body) : undefined);
const event = { body: null, pathParameters: null };

const INIT_START =
  /^INIT_START Runtime Version: nodejs:(\d+)\.v\d+\tRuntime Version ARN: arn:aws:lambda:([a-z0-9-]+)::runtime:[0-9a-f]{64}$/;

describe("Lambda's Node in the execution environments", () => {
  it('runs the bundle on the pinned Node 24, not on the Node that runs the host', async () => {
    expect(defaultLambdaNode().version).toMatch(/^24\./);
    const { p, lines } = pool();
    const r = await p.invoke(event);
    expect(body(r)).toMatchObject({ version: `v${defaultLambdaNode().version}`, regExpEscape: 'function' });
    expect(body(r).version).toMatch(/^v24\./);
    // The pool names no fallback: nothing but platform and function lines.
    expect(lines.filter((l) => l.includes('environments run'))).toEqual([]);
  });

  it('runs on the Node given as an override: here the machine Node that runs the tests', async () => {
    const { p } = pool({}, { node: process.execPath });
    const r = await p.invoke(event);
    expect(body(r).version).toBe(process.version);
    expect(body(r).regExpEscape).toBe(process.version.startsWith('v20.') ? 'undefined' : 'function');
  });

  it('says in one line when the environments do not run Lambda major', () => {
    const machine = resolveLambdaNode(process.execPath);
    if (process.versions.node.startsWith('24.')) expect(machine.warning).toBeUndefined();
    else
      expect(machine.warning).toMatch(/^--node runs Node \d+\.\d+\.\d+; Lambda's nodejs24\.x runs Node 24$/);
  });
});

describe("Lambda's platform lines", () => {
  it('starts every environment with INIT_START, before the init output; stable, named for the region', async () => {
    const { p, lines } = pool({}, { region: 'eu-west-1' });
    await Promise.all([p.invoke(event), p.invoke(event)]);
    const starts = lines.filter((l) => l.startsWith('INIT_START'));
    expect(starts).toHaveLength(2);
    expect(starts[0]).toBe(starts[1]);
    expect(starts[0]).toMatch(INIT_START);
    expect(INIT_START.exec(starts[0])?.slice(1)).toEqual(['24', 'eu-west-1']);
    expect(lines[0]).toBe(starts[0]);
    expect(lines.findIndex((l) => l.endsWith('\tINFO\tinit done'))).toBeGreaterThan(0);
    expect(parseLambdaLine(starts[0]).kind).toBe('other');
  });

  it('names the runtime by the major that runs it', async () => {
    const lines: string[] = [];
    const env = await ExecutionEnvironment.start({
      fn: fn(),
      env: {},
      initType: 'on-demand',
      onLog: (l) => lines.push(l),
      onExit: () => {},
      node: resolveLambdaNode(process.execPath),
    });
    await env.stop();
    expect(lines[0]).toMatch(INIT_START);
    expect(INIT_START.exec(lines[0])?.slice(1)).toEqual([process.versions.node.split('.')[0], 'us-east-1']);
  });

  it('writes START with $LATEST for an unqualified function and the version an alias runs otherwise', async () => {
    const latest = pool();
    const viaAlias = pool({}, { version: '1' });
    const [a, b] = await Promise.all([latest.p.invoke(event), viaAlias.p.invoke(event)]);
    expect(latest.lines).toContain(`START RequestId: ${a.requestId} Version: $LATEST`);
    expect(viaAlias.lines).toContain(`START RequestId: ${b.requestId} Version: 1`);
    expect(body(a)).toMatchObject({ functionVersion: '$LATEST', envVersion: '$LATEST' });
    expect(body(b)).toMatchObject({ functionVersion: '1', envVersion: '1' });
    // The rest of the context, as Lambda's Node runtime types it (memoryLimitInMB is a string).
    expect(body(a)).toMatchObject({
      functionName: 'runtime-fn',
      memoryLimitInMB: '256',
      requestId: a.requestId,
    });
  });

  it.each([
    [
      'a missing package',
      `import 'no-such-package-in-this-bundle';\nexport const handler = async () => 1;`,
      'index.handler',
      'Runtime.ImportModuleError',
      /Cannot find package 'no-such-package-in-this-bundle'/,
    ],
    [
      'a syntax error',
      'export const handler = async () => {',
      'index.handler',
      'Runtime.UserCodeSyntaxError',
      /SyntaxError: /,
    ],
    [
      'a missing handler export',
      'export const other = async () => 1;',
      'index.handler',
      'Runtime.HandlerNotFound',
      /index\.handler is undefined or not exported/,
    ],
    [
      'an error thrown at init',
      "throw new Error('cannot init: missing TABLE_NAME');",
      'index.handler',
      'Runtime.Unknown',
      /cannot init: missing TABLE_NAME/,
    ],
    [
      'an exit at init',
      "console.error('giving up');\nprocess.exit(2);",
      'index.handler',
      'Runtime.ExitError',
      /exited during init \(code 2/,
    ],
  ])('writes a failed init as Lambda does: %s', async (_what, code, handler, errorType, message) => {
    const { p, lines } = pool({ assetDir: bundleDir('broken', code), handler });
    const r = await p.invoke(event);
    expect(r).toMatchObject({ ok: false, reason: 'init' });
    expect(!r.ok && r.message).toMatch(message);
    const report = lines.filter((l) => l.startsWith('INIT_REPORT'));
    expect(report).toHaveLength(1);
    expect(report[0]).toMatch(
      new RegExp(
        `^INIT_REPORT Init Duration: \\d+\\.\\d\\d ms\\tPhase: init\\tStatus: error\\tError Type: ${errorType.replace('.', '\\.')}$`,
      ),
    );
    const parsed = parseLambdaLine(report[0]);
    expect(parsed.kind === 'init' && parsed.record).toMatchObject({ status: 'error' });
    expect(parsed.kind === 'init' && parsed.record.initDurationMs).toBeGreaterThan(0);
    // INIT_START first; what the init printed (the runtime's Init Error line) before INIT_REPORT.
    expect(lines[0]).toMatch(INIT_START);
    const printed = lines.findIndex((l) =>
      /\tundefined\tERROR\t(Init Error \t\{"errorType"|giving up)/.test(l),
    );
    expect(printed).toBeGreaterThan(0);
    expect(printed).toBeLessThan(lines.indexOf(report[0]));
    // The runtime's own line names its Runtime.* type; a plain Error keeps its name, which Lambda calls Runtime.Unknown.
    if (errorType !== 'Runtime.ExitError') {
      expect(lines[printed]).toContain(
        `"errorType":"${errorType === 'Runtime.Unknown' ? 'Error' : errorType}"`,
      );
    }
  });
});

/**
 * nodejs24.x's own rules for handlers, as its runtime interface client (aws-lambda-ric 4.x, the
 * runtime of nodejs24.x) applies them. Sources: AWS's "Node.js 24 runtime now available in AWS
 * Lambda" (aws.amazon.com/blogs/compute/node-js-24-runtime-now-available-in-aws-lambda: callback
 * handlers removed, with context.callbackWaitsForEmptyEventLoop, succeed, fail and done); the
 * developer guide's "Define Lambda function handler in Node.js" (callback-based handlers are
 * supported on Node.js 22 and earlier only); aws-lambda-ric 4.0.2's index.mjs (errorOnDeprecatedCallback:
 * a handler declaring three or more parameters fails the init with Runtime.CallbackHandlerDeprecated
 * and this message; ContextBuilder: the context it builds; BufferedInvokeProcessor: the answer is
 * the awaited return value, with no wait for the event loop); and the error as Lambda returned it
 * in open-telemetry/opentelemetry-js-contrib#3251.
 */
const CALLBACK_REMOVED =
  'ERROR: AWS Lambda has removed support for callback-based function handlers starting with Node.js 24. You need to modify this function to use a supported handler signature to use Node.js 24 or later. For more information see https://docs.aws.amazon.com/lambda/latest/dg/nodejs-handler.html.';

describe("nodejs24.x's handler rules", () => {
  it.each([
    [
      'a callback handler',
      'export const handler = (event, context, callback) => callback(null, { statusCode: 200 });',
    ],
    [
      'a callback handler that never calls back',
      'export function handler(event, context, callback) { setTimeout(() => callback(null, 1), 100); }',
    ],
    [
      'an async handler that declares a callback',
      'export const handler = async (event, context, callback) => 1;',
    ],
  ])(
    'fails the init of %s with Runtime.CallbackHandlerDeprecated instead of running it',
    async (_what, code) => {
      const { p, lines } = pool({ assetDir: bundleDir('callback', code), timeoutSeconds: 3 });
      const r = await p.invoke(event);
      expect(r).toMatchObject({ ok: false, reason: 'init' });
      expect(!r.ok && r.message).toContain(`Runtime.CallbackHandlerDeprecated: ${CALLBACK_REMOVED}`);
      expect(lines.filter((l) => l.startsWith('INIT_REPORT'))).toEqual([
        expect.stringMatching(/\tStatus: error\tError Type: Runtime\.CallbackHandlerDeprecated$/),
      ]);
      // The runtime's own line, as nodejs24.x writes it: "Init Error" and the error as JSON.
      const printed = lines.find((l) => /\tundefined\tERROR\tInit Error \t\{/.test(l));
      expect(printed).toBeDefined();
      expect(JSON.parse(String(printed).split('\t').slice(4).join('\t'))).toMatchObject({
        errorType: 'Runtime.CallbackHandlerDeprecated',
        errorMessage: CALLBACK_REMOVED,
      });
      // Nothing ran: no START for an invocation of a handler that never started.
      expect(lines.filter((l) => l.startsWith('START'))).toEqual([]);
    },
  );

  it('passes a context without callbackWaitsForEmptyEventLoop, succeed, fail or done', async () => {
    const code = `export const handler = async (_event, context) => ({ statusCode: 200, body: JSON.stringify({
      keys: Object.keys(context),
      removed: ['callbackWaitsForEmptyEventLoop', 'succeed', 'fail', 'done'].filter((k) => k in context),
    }) });`;
    const { p } = pool({ assetDir: bundleDir('context', code) });
    const r = await p.invoke(event);
    expect(body(r).removed).toEqual([]);
    expect(body(r).keys).toEqual(
      expect.arrayContaining(['awsRequestId', 'functionName', 'functionVersion', 'memoryLimitInMB']),
    );
  });

  it('answers with the return value at once, without waiting for the event loop to empty', async () => {
    // A timer far past the function's timeout keeps the loop busy: a runtime that waited for it
    // would end the invocation as a timeout. A handler with two parameters, not async: its return
    // value is the answer (Node 22's runtime ignored it and answered null once the loop emptied).
    const code = `export const handler = (_event, _context) => {
      setTimeout(() => {}, 600_000);
      return { statusCode: 200, body: 'now' };
    };`;
    const { p } = pool({ assetDir: bundleDir('no-wait', code), timeoutSeconds: 3 });
    const r = await p.invoke(event);
    expect(r).toMatchObject({ ok: true, response: { statusCode: 200, body: 'now' } });
  });
});

describe('the version an API route invokes', () => {
  const withAlias = mkdtempSync(join(root, 'pc-'));
  const without = mkdtempSync(join(root, 'nopc-'));
  synthLab({ keepAlive: 'on', provisionedConcurrency: '1' }, withAlias);
  synthLab({ keepAlive: 'on', provisionedConcurrency: '0' }, without);

  it('is the alias version when the API calls an alias, $LATEST when it calls the function', () => {
    for (const [dir, expected] of [
      [withAlias, FIRST_PUBLISHED_VERSION],
      [without, '$LATEST'],
    ] as const) {
      const assembly = readAssembly(dir);
      expect(assembly.routes.length).toBeGreaterThan(0);
      for (const r of assembly.routes) expect(invokedVersion(assembly.templates, r.function)).toBe(expected);
    }
  });
});
