import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { labFunctions } from '../../core/lab-functions';
import { PROJECT_ROOT } from '../../core/paths';
import { measureBundles } from '../../local/assembly/bundle-size';
import { type Assembly, readAssembly } from '../../local/assembly/cloud-assembly';
import { staticBuiltinImports } from '../support/bundle-imports';

/**
 * The real CLI, with esbuild bundling and CDK's template validation, as a user runs it (the slow
 * tier, test/tiers.mjs). The fast tier checks the bundles of its own synth (lab-bundles.test.ts).
 */
describe('cdk synth with default flags', () => {
  const outdir = mkdtempSync(join(tmpdir(), 'lab-cdk-synth-'));
  let status: number | null;
  let stderr: string;
  let assembly: Assembly;

  beforeAll(() => {
    const r = spawnSync('npx', ['cdk', 'synth', '--no-notices', '-q', '-o', outdir], {
      cwd: PROJECT_ROOT,
      encoding: 'utf8',
      env: { ...process.env, CDK_DISABLE_VERSION_CHECK: '1', CDK_DISABLE_CLI_TELEMETRY: '1' },
    });
    status = r.status;
    stderr = r.stderr;
    if (status === 0) assembly = readAssembly(outdir);
    // A bound for a hung CLI, not a speed check: a loaded 2-core machine took over 2 min.
  }, 600_000);

  afterAll(() => rmSync(outdir, { recursive: true, force: true }));

  it('succeeds and writes the three stacks', () => {
    expect(status, stderr).toBe(0);
    expect(Object.keys(assembly.templates).sort()).toEqual([
      'LatencyLab-Api',
      'LatencyLab-Data',
      'LatencyLab-PowerTuning',
    ]);
  });

  it('maps every route to a function with its bundle, handler and environment', () => {
    const routes = assembly.routes.map((r) => `${r.method} ${r.path} -> ${r.function.name}`).sort();
    expect(routes).toEqual([
      'GET /dynamodb/person -> dynamodb-query',
      'GET /dynamodb/person/{govId} -> dynamodb-get',
      'GET /dynamodb/top10 -> dynamodb-top10',
      'PATCH /dynamodb/person/{govId} -> dynamodb-update',
      'POST /dynamodb/person -> dynamodb-create',
      'POST /dynamodb/person/{govId}/view -> dynamodb-view',
      'POST /dynamodb/persons -> dynamodb-put10',
      'PUT /dynamodb/person/{govId} -> dynamodb-overwrite',
    ]);
    // The query's govIdType is required by the validator; the local stage checks it the same way.
    expect(assembly.routes.map((r) => `${r.function.name}: ${r.requiredQuery?.join(',')}`).sort()).toEqual([
      'dynamodb-create: ',
      'dynamodb-get: ',
      'dynamodb-overwrite: ',
      'dynamodb-put10: ',
      'dynamodb-query: govIdType',
      'dynamodb-top10: ',
      'dynamodb-update: ',
      'dynamodb-view: ',
    ]);
    for (const r of assembly.routes) {
      expect(existsSync(join(r.function.assetDir, 'index.mjs'))).toBe(true);
      // DynamoDB's one entry serves every operation: the handler is the operation's export.
      const operation = r.function.name.split('-')[1];
      expect(r.function).toMatchObject({
        handler: `index.${operation}`,
        runtime: 'nodejs24.x',
        memorySize: 512,
      });
      expect(r.function.environment.KEEP_ALIVE).toBe('on');
      // The data stack's SSM parameter, read as a template parameter (lib/constructs/hand-off.ts).
      expect(r.function.environment.TABLE_NAME).toEqual({ Ref: expect.stringMatching(/^SsmParameterValue/) });
    }
  });

  // The one synth in the suite that runs CDK's built-in CloudFormation validation (the lab's own
  // synth and the in-process template tests turn it off: it is most of their time, and it only warns).
  it("passes CDK's built-in CloudFormation template validation with no finding", () => {
    const report = JSON.parse(readFileSync(join(outdir, 'validation-report.json'), 'utf8')) as {
      pluginReports: { violations?: unknown[] }[];
    };
    expect(report.pluginReports.flatMap((r) => r.violations ?? [])).toEqual([]);
    expect(stderr).not.toContain('Template validation found issues');
  });

  it('takes every Node built-in through CommonJS: no bundle imports one statically but node:module, for the require shim', () => {
    for (const r of assembly.routes) {
      const code = readFileSync(join(r.function.assetDir, 'index.mjs'), 'utf8');
      expect(staticBuiltinImports(code), r.function.name).toEqual(['node:module']);
    }
  });

  it('keeps every DynamoDB bundle within 100 KB zipped, SDK included', () => {
    const sizes = measureBundles(assembly.routes.map((r) => r.function));
    expect(sizes).toHaveLength(labFunctions(['dynamodb'], ['on']).length);
    for (const s of sizes) expect(s.zippedBytes, s.name).toBeLessThanOrEqual(100 * 1024);
  });
});
