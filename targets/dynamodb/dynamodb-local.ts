/**
 * Amazon DynamoDB Local (Java), fetched from Maven Central by scripts/fetch-dynamodb-local.sh into
 * .cache/dynamodb-local/<version>/ and run with the machine's java (JAVA_HOME first).
 */
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { existsSync } from 'node:fs';
import { mkdir, readFile, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { fileURLToPath } from 'node:url';
import { assertPortFree, freePort } from '../../local/engines/free-port';
import {
  describeExit,
  type ManagedChild,
  outputSection,
  spawnChild,
} from '../../local/engines/managed-child';
import { labTempDir } from '../../local/run-dir';
import type { Engine, StartEngineOptions } from './engine-types';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const POM = join(ROOT, 'targets/dynamodb/dynamodb-local/pom.xml');
export const FETCH_SCRIPT = 'scripts/fetch-dynamodb-local.sh';
const MAIN_CLASS = 'com.amazonaws.services.dynamodbv2.local.main.ServerRunner';
// The JVM and Jetty need a few seconds on 2 cores, more when tests run beside it.
export const DEFAULT_START_TIMEOUT_MS = 90_000;
const POLL_MS = 100;
const BIND_ATTEMPTS = 3;

export interface DynamoDbLocalInstall {
  readonly version: string;
  readonly dir: string;
  readonly libDir: string;
  readonly nativeDir: string;
}

export async function dynamoDbLocalInstall(): Promise<DynamoDbLocalInstall> {
  const pom = await readFile(POM, 'utf8');
  const version = /<dynamodb-local\.version>([^<]+)<\/dynamodb-local\.version>/.exec(pom)?.[1];
  if (!version) throw new Error(`cannot read <dynamodb-local.version> from ${POM}`);
  const dir = join(ROOT, '.cache/dynamodb-local', version);
  return { version, dir, libDir: join(dir, 'lib'), nativeDir: join(dir, 'native') };
}

let fetching: Promise<void> | undefined;

/** Runs the fetch script unless the install is complete; one run at a time per process. */
async function ensureInstalled(
  install: DynamoDbLocalInstall,
  progress: (line: string) => void,
): Promise<void> {
  if (existsSync(join(install.dir, '.complete'))) return;
  fetching ??= runFetchScript(install, progress).finally(() => {
    fetching = undefined;
  });
  await fetching;
}

async function runFetchScript(
  install: DynamoDbLocalInstall,
  progress: (line: string) => void,
): Promise<void> {
  progress(
    `[dynamodb-local] DynamoDB Local ${install.version} is not in ${install.dir}: running ${FETCH_SCRIPT} (Maven Central, once)`,
  );
  const child = spawn('bash', [join(ROOT, FETCH_SCRIPT)], { cwd: ROOT, stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  child.stdout.on('data', (chunk: Buffer) => {
    output += chunk.toString();
  });
  child.stderr.on('data', (chunk: Buffer) => {
    output += chunk.toString();
  });
  const [code] = (await once(child, 'close')) as [number | null];
  if (code !== 0 || !existsSync(join(install.dir, '.complete'))) {
    throw new Error(
      `DynamoDB Local ${install.version} is not installed and ${FETCH_SCRIPT} failed (exit ${code}); ` +
        `run it by hand to see why.\n${output.trim()}`,
    );
  }
  progress(`[dynamodb-local] ${output.trim().split('\n').at(-1) ?? 'fetched'}`);
}

export async function startDynamoDbLocal(opts: StartEngineOptions): Promise<Engine> {
  const started = Date.now();
  const install = await dynamoDbLocalInstall();
  await ensureInstalled(install, opts.log ?? ((line) => process.stderr.write(`${line}\n`)));
  if (opts.dataDir !== undefined) await mkdir(opts.dataDir, { recursive: true });

  const requested = opts.port ?? 0;
  const autoPort = requested === 0;
  // Only an auto-picked port can be lost to another process between picking and binding: retry those.
  for (let attempt = 1; ; attempt++) {
    const port = autoPort ? await freePort() : requested;
    if (!autoPort) await assertPortFree(port);
    try {
      const engine = await launch(install, port, opts);
      opts.log?.(
        `[dynamodb-local] ready at ${engine.endpoint} in ${Date.now() - started} ms (pid ${engine.pid})`,
      );
      return engine;
    } catch (err) {
      if (!(err instanceof PortTakenError) || !autoPort || attempt >= BIND_ATTEMPTS) throw err;
      opts.log?.(`[dynamodb-local] port ${port} was taken before the JVM bound it: trying another`);
    }
  }
}

class PortTakenError extends Error {}

async function launch(
  install: DynamoDbLocalInstall,
  port: number,
  opts: StartEngineOptions,
): Promise<Engine> {
  // A temp folder of our own, removed on stop: DynamoDB Local 2.x extracts its bundled sqlite4java
  // native library into java.io.tmpdir on every start and only deletes it on a clean JVM exit.
  const javaTmp = await labTempDir('dynamodb-local-');
  const args = [
    // No /tmp/hsperfdata_<user>/<pid> file: nothing reads it and it is left behind after SIGKILL.
    '-XX:-UsePerfData',
    `-Djava.io.tmpdir=${javaTmp}`,
    // Only a fallback: 2.x loads the copy bundled in its jar first (its SQLiteLibraryLoader tries
    // org.sqlite.lib.path, then the jar, then java.library.path).
    `-Djava.library.path=${install.nativeDir}`,
    '-cp',
    `${install.libDir}/*`,
    MAIN_CLASS,
    '-port',
    String(port),
    '-disableTelemetry',
    // One table set for every access key and region, as on a real account.
    '-sharedDb',
    ...(opts.dataDir !== undefined ? ['-dbPath', opts.dataDir] : ['-inMemory']),
  ];
  // DynamoDB Local has no bind-address option: it listens on all interfaces. We only ever
  // connect to 127.0.0.1, and the lab's machines accept no inbound traffic from elsewhere.
  let child: ManagedChild;
  try {
    child = await spawnChild(javaCommand(), args, { name: 'dynamodb-local', log: opts.log });
  } catch (err) {
    await rm(javaTmp, { recursive: true, force: true });
    throw new Error(`${(err as Error).message} (DynamoDB Local needs Java 17+ on PATH or JAVA_HOME)`);
  }
  const stop = async (): Promise<void> => {
    await child.stop();
    await rm(javaTmp, { recursive: true, force: true });
  };

  const endpoint = `http://127.0.0.1:${port}`;
  try {
    await waitUntilAnswering(child, endpoint, opts.startTimeoutMs ?? DEFAULT_START_TIMEOUT_MS);
  } catch (err) {
    await stop();
    throw err;
  }
  return { kind: 'dynamodb-local', endpoint, port, pid: child.pid, stop };
}

function javaCommand(): string {
  const home = process.env.JAVA_HOME;
  return home ? join(home, 'bin', 'java') : 'java';
}

async function waitUntilAnswering(child: ManagedChild, endpoint: string, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (child.hasExited()) {
      const exit = await child.exited;
      const output = child.recentOutput();
      const message = `dynamodb-local ${describeExit(exit)} before answering on ${endpoint}${outputSection(child)}`;
      throw /BindException|Address already in use/.test(output)
        ? new PortTakenError(message)
        : new Error(message);
    }
    // Only our own JVM counts: it must still be running when the port answers.
    if ((await answersListTables(endpoint)) && !child.hasExited()) return;
    await sleep(POLL_MS);
  }
  throw new Error(
    `dynamodb-local did not answer on ${endpoint} within ${timeoutMs} ms${outputSection(child)}`,
  );
}

/** One ListTables call with plain fetch. DynamoDB Local wants a SigV4-shaped header but checks no signature. */
async function answersListTables(endpoint: string): Promise<boolean> {
  const day = new Date().toISOString().slice(0, 10).replaceAll('-', '');
  try {
    const res = await fetch(endpoint, {
      method: 'POST',
      headers: {
        'Content-Type': 'application/x-amz-json-1.0',
        'X-Amz-Target': 'DynamoDB_20120810.ListTables',
        Authorization: `AWS4-HMAC-SHA256 Credential=local/${day}/us-east-1/dynamodb/aws4_request, SignedHeaders=host, Signature=0`,
      },
      body: '{}',
      signal: AbortSignal.timeout(2_000),
    });
    await res.arrayBuffer();
    return res.ok;
  } catch {
    return false; // not listening yet, or Jetty still starting
  }
}
