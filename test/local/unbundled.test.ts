/**
 * The unbundled build the QLDB article's "10.18 MB (node_modules zipped)" row needs
 * (local/assembly/unbundled.ts): the packages a handler imports and what npm would install for
 * them, in npm's layout, and a zip any zip reader opens.
 */
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { buildUnbundled, dependencyClosure, packageOf, zipFolder } from '../../local/assembly/unbundled';

const root = mkdtempSync(join(tmpdir(), 'lab-unbundled-'));
afterAll(() => rmSync(root, { recursive: true, force: true }));

function pkg(dir: string, json: Record<string, unknown>): void {
  mkdirSync(dir, { recursive: true });
  writeFileSync(join(dir, 'package.json'), JSON.stringify(json));
  writeFileSync(join(dir, 'index.js'), `module.exports = ${JSON.stringify(json.name)};\n`);
}

describe('packageOf', () => {
  it('names the package of an import, and nothing for built-ins and relative paths', () => {
    expect(packageOf('@aws-sdk/client-qldb-session')).toBe('@aws-sdk/client-qldb-session');
    expect(packageOf('@smithy/node-http-handler/dist-cjs/x.js')).toBe('@smithy/node-http-handler');
    expect(packageOf('ion-js/dist/es6')).toBe('ion-js');
    expect(packageOf('node:http')).toBeUndefined();
    expect(packageOf('fs/promises')).toBeUndefined();
    expect(packageOf('./shared/env')).toBeUndefined();
  });
});

describe('dependencyClosure', () => {
  const project = join(root, 'project');
  const nm = join(project, 'node_modules');
  pkg(join(nm, 'driver'), {
    name: 'driver',
    version: '3.0.0',
    dependencies: { util: '^2' },
    optionalDependencies: { 'not-installed': '1' },
    peerDependencies: { client: '^1', 'optional-peer': '1' },
    peerDependenciesMeta: { 'optional-peer': { optional: true } },
  });
  pkg(join(nm, 'client'), { name: 'client', version: '1.0.0', dependencies: { util: '^1' } });
  pkg(join(nm, 'util'), { name: 'util', version: '1.0.0' });
  // driver needs util 2: npm nests it under the driver.
  pkg(join(nm, 'driver', 'node_modules', 'util'), { name: 'util', version: '2.0.0' });
  pkg(join(nm, 'dev-only'), { name: 'dev-only', version: '9.0.0' });

  it('follows dependencies and peers as Node resolves them, nested versions included, dev packages not', () => {
    const found = [...dependencyClosure(['driver'], project).values()].map((p) => `${p.name}@${p.version}`);
    expect(found.sort()).toEqual(['client@1.0.0', 'driver@3.0.0', 'util@1.0.0', 'util@2.0.0']);
  });

  it('names a missing dependency and who needs it', () => {
    pkg(join(nm, 'broken'), { name: 'broken', version: '0.1.0', dependencies: { gone: '1' } });
    expect(() => dependencyClosure(['broken'], project)).toThrow(
      /gone \(needed by broken@0\.1\.0\) is not installed/,
    );
  });
});

describe('buildUnbundled and zipFolder on the QLDB handler entry', () => {
  it('leaves the packages as imports, copies their production closure, and zips what a zip reader opens', async () => {
    const out = join(root, 'qldb-get');
    const b = await buildUnbundled('targets/qldb/handler.ts', out);
    const code = readFileSync(join(out, 'index.mjs'), 'utf8');
    // Not bundled: the driver is imported, the project's own modules are inlined.
    expect(code).toMatch(/from "amazon-qldb-driver-nodejs"/);
    expect(code).not.toMatch(/from "\.\.?\//);
    for (const name of ['amazon-qldb-driver-nodejs', '@aws-sdk/client-qldb-session', 'ion-js', 'jsbi'])
      expect(existsSync(join(out, 'node_modules', name, 'package.json')), name).toBe(true);
    // Nothing the handler does not need: no dev tooling, no other target's client.
    for (const name of ['vitest', 'aws-cdk-lib', 'esbuild', '@aws-sdk/client-dynamodb', 'ioredis'])
      expect(existsSync(join(out, 'node_modules', name)), name).toBe(false);
    expect(b.packages).toContain('amazon-qldb-driver-nodejs@3.1.0');
    expect(b.bytes).toBeGreaterThan(1e6);

    const zip = join(root, 'qldb-get.zip');
    const bytes = zipFolder(out, zip);
    expect(readFileSync(zip).length).toBe(bytes);
    expect(bytes).toBeLessThan(b.bytes);
    // An independent reader checks every entry's CRC and lists the files.
    const r = spawnSync(
      'python3',
      [
        '-c',
        'import sys, zipfile; z = zipfile.ZipFile(sys.argv[1]); print(z.testzip()); print(len(z.namelist())); print("index.mjs" in z.namelist())',
        zip,
      ],
      { encoding: 'utf8' },
    );
    expect(r.stderr).toBe('');
    expect(r.stdout.trim().split('\n')).toEqual(['None', String(b.files), 'True']);
  }, 120_000);
});
