/**
 * The local lab as a local cloud: `npm run local` with every target, driven as a new user
 * would from a second shell that has only the environment file. Each command the start screen
 * prints runs with its standard client (redis-cli, psql, curl --aws-sigv4, the AWS CLI where
 * installed); boto3 with pyqldb and the AWS SDK for JavaScript v3, given nothing but the file,
 * list the DynamoDB tables and run a QLDB statement. After SIGTERM the file is gone.
 *
 * What the clients read is AWS's documented configuration:
 * - service-specific endpoints, AWS_ENDPOINT_URL_<SERVICE>:
 *   https://docs.aws.amazon.com/sdkref/latest/guide/feature-ss-endpoints.html
 * - AWS_CA_BUNDLE: https://docs.aws.amazon.com/sdkref/latest/guide/feature-gen-config.html
 * - NODE_EXTRA_CA_CERTS (Node): https://nodejs.org/api/cli.html#node_extra_ca_certsfile
 * - libpq's PGHOST, PGPORT, PGUSER, PGSSLMODE, PGSSLROOTCERT:
 *   https://www.postgresql.org/docs/current/libpq-envars.html
 * - DSQL's admin token as the password: https://docs.aws.amazon.com/aurora-dsql/latest/userguide/SECTION_authentication-token.html
 */
import { type ChildProcess, execFile, spawn } from 'node:child_process';
import { once } from 'node:events';
import { existsSync, mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PROJECT_ROOT } from '../../core/paths';
import { parseEnvFile } from '../../local/lab-env';
import { setupTask } from '../support/shared-engines';
import { CONFORMANCE_CLIENTS, venvPython } from './support/clients';

const READY = 'Ctrl-C to stop.';
const TARGETS = 'dynamodb,qldb,redis,dsql';

interface Run {
  readonly code: number;
  readonly stdout: string;
  readonly stderr: string;
}

/** Runs a command with only PATH and HOME from this process, plus `env`. */
/** `npm run -s local -- env` as a second terminal would run it, against this test's file. */
function printEnv(envFile: string): Promise<Run> {
  return run(process.execPath, [
    '--import',
    'tsx',
    '--import',
    './targets/load-env.ts',
    'local/cli/local.ts',
    'env',
    '--lab-env',
    envFile,
  ]);
}

function run(command: string, args: readonly string[], env: Record<string, string> = {}): Promise<Run> {
  return new Promise((resolve) => {
    execFile(
      command,
      [...args],
      {
        cwd: PROJECT_ROOT,
        env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '', ...env },
        timeout: 90_000,
        encoding: 'utf8',
      },
      (error, stdout, stderr) => {
        const code = error ? (typeof error.code === 'number' ? error.code : 1) : 0;
        resolve({ code, stdout, stderr });
      },
    );
  });
}

describe('npm run local: a local cloud the standard clients reach', () => {
  let dir: string;
  let envFile: string;
  let lab: ChildProcess;
  let output = '';
  let screen: string[] = [];
  let vars: Record<string, string> = {};
  /** A printed line's command, from where it starts. */
  const commandOn = (start: string): string => {
    const line = screen.find((l) => l.includes(start));
    if (!line) throw new Error(`no line with ${start} on the screen:\n${screen.join('\n')}`);
    return line.slice(line.indexOf(start));
  };
  /** Runs a printed command in bash after sourcing the environment file, as a second shell would. */
  const sourced = (command: string) => run('bash', ['-c', `. ${envFile} && ${command}`]);

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'lab-local-cloud-'));
    envFile = join(dir, 'local.env');
    // node --import tsx: the lab is this child itself, so SIGTERM reaches it as Ctrl-C would.
    lab = spawn(
      process.execPath,
      [
        '--import',
        'tsx',
        '--import',
        './targets/load-env.ts',
        'local/cli/local.ts',
        '--port',
        '0',
        '--targets',
        TARGETS,
        '--lab-env',
        envFile,
        '--quiet',
      ],
      { cwd: PROJECT_ROOT, stdio: ['ignore', 'pipe', 'pipe'] },
    );
    lab.stdout?.setEncoding('utf8').on('data', (chunk: string) => {
      output += chunk;
    });
    lab.stderr?.setEncoding('utf8').on('data', (chunk: string) => {
      output += chunk;
    });
    await new Promise<void>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`the lab did not start:\n${output}`)), 280_000);
      const check = () => {
        if (output.includes(READY)) {
          clearTimeout(timer);
          resolve();
        }
      };
      lab.stdout?.on('data', check);
      lab.once('exit', (code) => {
        clearTimeout(timer);
        reject(new Error(`the lab exited with ${code} before it was ready:\n${output}`));
      });
    });
    screen = output.slice(0, output.indexOf(READY)).split('\n');
    vars = parseEnvFile(readFileSync(envFile, 'utf8'));
  }, 300_000);

  afterAll(async () => {
    if (lab && lab.exitCode === null && lab.signalCode === null) {
      lab.kill('SIGTERM');
      await once(lab, 'exit');
    }
    rmSync(dir, { recursive: true, force: true });
  });

  it('shows at most 25 lines before "Ctrl-C to stop", every one the lab\'s own', () => {
    expect(screen.length).toBeLessThanOrEqual(25);
    // No engine log, network-model event or SDK warning: those go to the log file.
    expect(screen.filter((l) => /^\[|NodeVersionSupportWarning|^\(node:\d+\)/.test(l))).toEqual([]);
    const logLine = screen.find((l) => l.includes('engine logs and network-model events:')) ?? '';
    const logFile = logLine.slice(logLine.lastIndexOf(' ') + 1);
    expect(readFileSync(logFile, 'utf8')).toMatch(/^\[dynalite\] ready at/m);
    // One line per service, each address in its clients' scheme.
    expect(screen.find((l) => l.startsWith('DynamoDB'))).toMatch(/ https:\/\/127\.0\.0\.1:\d+ /);
    expect(screen.find((l) => l.startsWith('QLDB'))).toMatch(/AWS_ENDPOINT_URL_QLDB_SESSION=https:/);
    expect(screen.find((l) => l.startsWith('Redis'))).toMatch(/ rediss:\/\/localhost:\d+ /);
    expect(screen.find((l) => l.startsWith('Aurora DSQL'))).toMatch(
      /postgresql:\/\/admin@localhost:\d+\/postgres/,
    );
    // The API's base URL, then one line per target with its operations.
    for (const target of TARGETS.split(','))
      expect(screen.some((l) => l.startsWith(`  /${target}/`) && l.includes('update PATCH'))).toBe(true);
  });

  it('writes the environment file, mode 0600, and `local env` prints it', async () => {
    expect(statSync(envFile).mode & 0o777).toBe(0o600);
    for (const key of [
      'AWS_ENDPOINT_URL_DYNAMODB',
      'AWS_ENDPOINT_URL_QLDB_SESSION',
      'AWS_ENDPOINT_URL_QLDB',
      'AWS_REGION',
      'AWS_ACCESS_KEY_ID',
      'AWS_SECRET_ACCESS_KEY',
      'AWS_CA_BUNDLE',
      'NODE_EXTRA_CA_CERTS',
      'LAB_API_URL',
      'REDIS_URL',
      'PGHOST',
      'PGPORT',
      'PGUSER',
      'PGSSLMODE',
      'PGSSLROOTCERT',
    ])
      expect(vars[key], key).toBeTruthy();
    expect(vars.REDIS_URL).toMatch(/^rediss:\/\/default:[^@]+@localhost:\d+$/);
    const printed = await printEnv(envFile);
    expect(printed.code).toBe(0);
    expect(printed.stdout).toBe(readFileSync(envFile, 'utf8'));
  });

  it('redis-cli: the printed line, and REDIS_URL, answer PONG', async () => {
    const printed = await sourced(commandOn('redis-cli '));
    expect(printed).toMatchObject({ code: 0, stdout: 'PONG\n' });
    const byUrl = await sourced(
      'redis-cli -u "$REDIS_URL" --tls --cacert "$AWS_CA_BUNDLE" --no-auth-warning PING',
    );
    expect(byUrl).toMatchObject({ code: 0, stdout: 'PONG\n' });
  });

  it('psql: the printed line, and the PG* variables with a token, run SELECT 1', async () => {
    const printed = await sourced(commandOn('PGPASSWORD='));
    expect(printed.stderr).toBe('');
    expect(printed.stdout).toMatch(/^\s+1\s*$/m);
    const byEnv = await sourced(
      `PGPASSWORD="$(node --import tsx --import ./targets/load-env.ts local/cli/local.ts token --lab-env ${envFile})" psql -Atc 'SELECT 1'`,
    );
    expect(byEnv).toMatchObject({ code: 0, stdout: '1\n' });
  });

  it('curl --aws-sigv4: the printed line gets a 200 with the Person a signed POST created', async () => {
    const line = commandOn('curl --aws-sigv4');
    const getUrl = line.slice(line.lastIndexOf(' ') + 1);
    const collection = getUrl.replace(/\/[^/]+$/, '');
    const body = JSON.stringify({
      GovId: 'AB-1',
      FirstName: 'Grace',
      LastName: 'Hopper',
      DOB: '1906-12-09',
      GovIdType: 'Passport',
    });
    const signing = line.slice(0, line.lastIndexOf(' '));
    const created = await sourced(
      `${signing} -s -o /dev/null -w '%{http_code}' -H 'content-type: application/json' -d '${body}' ${collection}`,
    );
    expect(['201', '409']).toContain(created.stdout);
    const got = await sourced(`${line} -s -w '\\n%{http_code}'`);
    const [text, status] = got.stdout.split('\n');
    expect(status).toBe('200');
    expect(JSON.parse(text ?? '{}').person).toMatchObject({ GovId: 'AB-1', FirstName: 'Grace' });
  });

  it('boto3 and pyqldb, given only the file, list the tables and run a QLDB statement', async () => {
    const ledger = /ledger (\S+)/.exec(commandOn('AWS_ENDPOINT_URL_QLDB_SESSION='))?.[1] ?? '';
    await setupTask('conformance-clients');
    const r = await run(
      venvPython(),
      [join(CONFORMANCE_CLIENTS, 'local_cloud_boto3.py'), ledger, 'PY-1'],
      vars,
    );
    expect(r.stderr).toBe('');
    const seen = JSON.parse(r.stdout) as { tables: string[]; qldb: string[] };
    expect(seen.tables).toEqual([expect.stringMatching(/PersonTable/)]);
    expect(seen.qldb).toEqual(['{FirstName:"Ada"}']);
    // The printed AWS CLI line too, where the CLI is installed (its absence is not the lab's).
    const cli = await run('bash', ['-c', 'command -v aws']);
    if (cli.code === 0) {
      const listed = await sourced(commandOn('aws dynamodb list-tables'));
      expect(JSON.parse(listed.stdout).TableNames).toEqual(seen.tables);
    }
  });

  it('the AWS SDK for JavaScript v3, given only the file, lists the tables and reads what pyqldb wrote', async () => {
    const ledger = /ledger (\S+)/.exec(commandOn('AWS_ENDPOINT_URL_QLDB_SESSION='))?.[1] ?? '';
    const script = `
      import { DynamoDBClient, ListTablesCommand } from '@aws-sdk/client-dynamodb';
      import { QldbDriver } from 'amazon-qldb-driver-nodejs';
      const { TableNames } = await new DynamoDBClient({}).send(new ListTablesCommand({}));
      const driver = new QldbDriver(${JSON.stringify(ledger)});
      const rows = await driver.executeLambda(async (txn) =>
        (await txn.execute('SELECT FirstName FROM Person WHERE GovId = ?', 'PY-1')).getResultList());
      driver.close();
      console.log(JSON.stringify({ TableNames, rows: rows.map((r) => r.get('FirstName')?.stringValue()) }));`;
    const r = await run(process.execPath, ['--input-type=module', '-e', script], vars);
    // The SDK's own Node-version warning may be on stderr: the user's program, the user's Node.
    expect(r.stderr).not.toMatch(/Error/);
    expect(JSON.parse(r.stdout)).toEqual({
      TableNames: [expect.stringMatching(/PersonTable/)],
      rows: ['Ada'],
    });
  });

  it('after SIGTERM the lab stops and the environment file is gone', async () => {
    expect(existsSync(envFile)).toBe(true);
    lab.kill('SIGTERM');
    const [code] = await once(lab, 'exit');
    // 128 + SIGTERM, as every CLI that starts the lab exits after stopping it (core/interrupt.ts).
    expect(code).toBe(143);
    expect(existsSync(envFile)).toBe(false);
    const printed = await printEnv(envFile);
    expect(printed.code).toBe(1);
    expect(printed.stderr).toMatch(/no local lab is running/);
  }, 60_000);
});
