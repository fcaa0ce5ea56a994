import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { readAssembly } from '../../local/assembly/cloud-assembly';
import { localEnvironment, UnresolvableEnvironmentError } from '../../local/assembly/environment';
import { synthLab } from '../support/synth';

const outdir = mkdtempSync(join(tmpdir(), 'lab-assembly-'));
afterAll(() => rmSync(outdir, { recursive: true, force: true }));

describe('template -> route -> function -> bundle', () => {
  synthLab({ keepAlive: 'both', provisionedConcurrency: '2', memorySize: '1024' }, outdir);
  const assembly = readAssembly(outdir);

  it('maps every REST route through the alias to its function and bundle folder', () => {
    expect(assembly.stage).toBe('lab');
    expect(assembly.routes.map((r) => `${r.method} ${r.path} -> ${r.function.name}`).sort()).toEqual([
      'GET /dynamodb/keepalive-off/person -> dynamodb-query-keepalive-off',
      'GET /dynamodb/keepalive-off/person/{govId} -> dynamodb-get-keepalive-off',
      'GET /dynamodb/keepalive-on/person -> dynamodb-query-keepalive-on',
      'GET /dynamodb/keepalive-on/person/{govId} -> dynamodb-get-keepalive-on',
      'GET /dynamodb/keepalive-on/top10 -> dynamodb-top10-keepalive-on',
      'PATCH /dynamodb/keepalive-off/person/{govId} -> dynamodb-update-keepalive-off',
      'PATCH /dynamodb/keepalive-on/person/{govId} -> dynamodb-update-keepalive-on',
      'POST /dynamodb/keepalive-off/person -> dynamodb-create-keepalive-off',
      'POST /dynamodb/keepalive-off/persons -> dynamodb-put10-keepalive-off',
      'POST /dynamodb/keepalive-on/person -> dynamodb-create-keepalive-on',
      'POST /dynamodb/keepalive-on/person/{govId}/view -> dynamodb-view-keepalive-on',
      'POST /dynamodb/keepalive-on/persons -> dynamodb-put10-keepalive-on',
      'PUT /dynamodb/keepalive-off/person/{govId} -> dynamodb-overwrite-keepalive-off',
      'PUT /dynamodb/keepalive-on/person/{govId} -> dynamodb-overwrite-keepalive-on',
    ]);
    // Only the query's validator requires a query string parameter.
    expect(
      assembly.routes
        .filter((r) => (r.requiredQuery ?? []).length > 0)
        .map((r) => `${r.method} ${r.path} ${r.requiredQuery}`),
    ).toEqual(
      expect.arrayContaining([
        'GET /dynamodb/keepalive-on/person govIdType',
        'GET /dynamodb/keepalive-off/person govIdType',
      ]),
    );
    expect(assembly.routes.filter((r) => (r.requiredQuery ?? []).length > 0)).toHaveLength(2);
    for (const r of assembly.routes) {
      // A target's functions share one bundle; each names its operation's export.
      const operation = r.function.name.split('-')[1];
      expect(r.function).toMatchObject({
        provisionedConcurrency: 2,
        memorySize: 1024,
        timeoutSeconds: 10,
        handler: `index.${operation}`,
        runtime: 'nodejs24.x',
      });
      // Bundling is skipped here (the real synth test checks the bundles); the folder must still exist.
      expect(existsSync(r.function.assetDir)).toBe(true);
      expect(r.function.environment.KEEP_ALIVE).toBe(r.path.includes('keepalive-on') ? 'on' : 'off');
    }
  });

  it('resolves the table name handed over as an SSM parameter to a local table, never inherits the host environment', () => {
    const fn = assembly.routes[0].function;
    const env = localEnvironment(fn, assembly.templates, {
      nameOf: (stack, id, type) => (type === 'AWS::DynamoDB::Table' ? `${stack}-${id}` : undefined),
      extra: { AWS_REGION: 'us-east-1' },
    });
    expect(env.TABLE_NAME).toMatch(/^LatencyLab-Data-PersonTable[0-9A-F]{8}$/);
    expect(env).toMatchObject({ AWS_REGION: 'us-east-1', AWS_LAMBDA_FUNCTION_MEMORY_SIZE: '1024' });
    expect(env.PATH).toBeUndefined();
    // Each function's identity as the stack sets it: the name its handlers publish their metrics under.
    for (const r of assembly.routes) {
      const e = localEnvironment(r.function, assembly.templates, {
        nameOf: (stack, id) => `${stack}-${id}`,
        extra: {},
      });
      expect(e.LAB_FUNCTION).toBe(r.function.name);
      expect(e.LAB_FUNCTION).toMatch(new RegExp(`-keepalive-${e.KEEP_ALIVE}$`));
    }
    // Lambda's runtime is newer than this machine's Node: no SDK Node-version warning at init.
    expect(env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED).toBe('true');
    expect(() =>
      localEnvironment(fn, assembly.templates, { nameOf: () => undefined, extra: {} }),
    ).toThrowError(UnresolvableEnvironmentError);
  });
});

describe('a template on Lambda Managed Instances', () => {
  const miOut = mkdtempSync(join(tmpdir(), 'lab-assembly-mi-'));
  afterAll(() => rmSync(miOut, { recursive: true, force: true }));
  synthLab(
    {
      targets: 'dynamodb',
      compute: 'managed-instances',
      memorySize: '4096',
      managedInstancesMaxConcurrency: '8',
      managedInstancesMemoryGiBPerVCpu: '4',
    },
    miOut,
  );

  it("gives every function its capacity provider's concurrency and memory per vCPU, which the host runs with", () => {
    const fns = readAssembly(miOut).routes.map((r) => r.function);
    expect(fns.length).toBeGreaterThan(0);
    for (const f of fns) {
      expect(f.capacityProvider).toEqual({ maxConcurrency: 8, memoryGiBPerVCpu: 4 });
      expect(f.memorySize).toBe(4096);
    }
  });

  it('leaves a standard function without one', () => {
    expect(readAssembly(outdir).routes.every((r) => r.function.capacityProvider === undefined)).toBe(true);
  });
});
