/**
 * The start screen's pure parts and the environment file's life: one line per target with its
 * operations, the Node end-of-life line, and a file written 0600, read back exactly, removed
 * only by the lab that wrote it, and refused (and removed) once that lab is gone.
 */
import { existsSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { apiTargetLines, nodeEndOfLifeNotice, routeLines } from '../../local/cli/start-screen';
import {
  formatEnvFile,
  labEnvVars,
  parseEnvFile,
  readEnvFile,
  removeEnvFile,
  writeEnvFile,
} from '../../local/lab-env';

const dir = mkdtempSync(join(tmpdir(), 'lab-env-test-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const routes = ['on', 'off'].flatMap((v) => [
  { method: 'POST', path: `/dynamodb/keepalive-${v}/person`, functionName: `dynamodb-create-keepalive-${v}` },
  {
    method: 'GET',
    path: `/dynamodb/keepalive-${v}/person/{govId}`,
    functionName: `dynamodb-get-keepalive-${v}`,
  },
  { method: 'GET', path: `/dynamodb/keepalive-${v}/person`, functionName: `dynamodb-query-keepalive-${v}` },
]);

describe('start screen', () => {
  it('lists one line per target with each operation it serves, and --routes every route', () => {
    expect(apiTargetLines(routes)).toEqual([
      '  /dynamodb/{keepalive-on,keepalive-off}  create POST /person, get GET /person/{govId}, query GET /person?govIdType=T&limit=N',
    ]);
    const all = routeLines('http://127.0.0.1:1/lab', routes);
    expect(all).toHaveLength(6);
    expect(all[0]).toBe(
      '  POST   http://127.0.0.1:1/lab/dynamodb/keepalive-on/person  -> dynamodb-create-keepalive-on',
    );
  });

  it('says in one line when the host Node is past its end of life, and nothing before', () => {
    expect(nodeEndOfLifeNotice('v20.20.2', new Date('2026-11-25'))).toMatch(
      /^Node v20\.20\.2 reached end of life on 2026-04-30: .*upgrade to Node 22 or 24/,
    );
    expect(nodeEndOfLifeNotice('v20.20.2', new Date('2026-04-01'))).toBeUndefined();
    expect(nodeEndOfLifeNotice('v24.1.0', new Date('2026-11-25'))).toBeUndefined();
  });
});

describe('environment file', () => {
  const vars = labEnvVars({
    apiUrl: 'http://127.0.0.1:3100/lab',
    caCertPath: '/tmp/a dir/ca.pem',
    services: { REDIS_URL: "rediss://default:p'w@localhost:1" },
  });

  it('writes export lines a shell and the parser read back exactly, mode 0600', () => {
    const file = join(dir, 'a.env');
    writeFileSync(file, 'old', { mode: 0o644 });
    writeEnvFile(file, vars);
    expect(statSync(file).mode & 0o777).toBe(0o600);
    const text = readFileSync(file, 'utf8');
    expect(text).toBe(formatEnvFile(vars, process.pid));
    expect(text).toContain(`export AWS_CA_BUNDLE='/tmp/a dir/ca.pem'`);
    expect(parseEnvFile(text)).toEqual(vars);
    expect(readEnvFile(file)).toBe(text);
  });

  it('is removed only by the lab that wrote it', () => {
    const file = join(dir, 'b.env');
    writeEnvFile(file, vars);
    removeEnvFile(file, process.pid + 1);
    expect(existsSync(file)).toBe(true);
    removeEnvFile(file);
    expect(existsSync(file)).toBe(false);
  });

  it('a file whose lab is gone is refused with how to start one, and removed', () => {
    const file = join(dir, 'c.env');
    // PID 2^22+1 is above Linux's pid_max limit: no process has it.
    writeFileSync(file, formatEnvFile(vars, 4_194_305), { mode: 0o600 });
    const read = readEnvFile(file);
    expect(read).toBeInstanceOf(Error);
    expect((read as Error).message).toMatch(
      /is gone; removed the stale file\. Start one with: npm run local/,
    );
    expect(existsSync(file)).toBe(false);
    expect((readEnvFile(file) as Error).message).toMatch(/no local lab is running/);
  });
});
