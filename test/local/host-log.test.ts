/**
 * The host's log is written off the request path (core/line-file.ts) and loses nothing on exit:
 * lines come out whole and in order, a process that exits at once still has every line, and a
 * host stopped right after a burst has a REPORT line for every request it answered.
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import http from 'node:http';
import net from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { LineFile } from '../../core/line-file';
import { signRequest } from '../../local/auth/sigv4';
import { freePort } from '../../local/engines/free-port';
import { LOCAL_CALLER } from '../../local/lab-defaults';

const ROOT = join(import.meta.dirname, '..', '..');
const dir = mkdtempSync(join(tmpdir(), 'host-log-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const lines = (file: string) => readFileSync(file, 'utf8').split('\n').slice(0, -1);

/** Runs a script on this Node with tsx (the project's loader) and waits for its exit. */
function run(
  args: string[],
  opts: { timeoutMs?: number } = {},
): Promise<{ code: number | null; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['--import', 'tsx', ...args], {
      cwd: ROOT,
      stdio: ['ignore', 'ignore', 'pipe'],
    });
    let stderr = '';
    child.stderr.on('data', (d) => {
      stderr += d;
    });
    const timer = setTimeout(() => child.kill('SIGKILL'), opts.timeoutMs ?? 20_000);
    child.once('error', reject);
    child.once('exit', (code) => {
      clearTimeout(timer);
      resolve({ code, stderr });
    });
  });
}

describe('LineFile', () => {
  it('writes every line whole and in order, once flushed or closed', () => {
    const file = join(dir, 'order.log');
    const log = new LineFile(file, { flags: 'w', highWaterBytes: 1000 });
    const written = Array.from({ length: 500 }, (_, i) => `line ${i}\twith a tab`);
    for (const l of written) log.write(l);
    log.close();
    expect(lines(file)).toEqual(written);
    // After close a late line is appended, not dropped.
    log.write('late');
    expect(lines(file).at(-1)).toBe('late');
  });

  it('keeps nothing back from a process that exits right after writing', async () => {
    const file = join(dir, 'exit.log');
    const script = join(dir, 'exit-at-once.ts');
    writeFileSync(
      script,
      [
        `import { LineFile } from ${JSON.stringify(join(ROOT, 'core', 'line-file.ts'))};`,
        `const log = new LineFile(${JSON.stringify(file)}, { flags: 'w', flushMs: 60_000 });`,
        "for (let i = 0; i < 2000; i++) log.write('REPORT ' + i);",
        'process.exit(0);',
        '',
      ].join('\n'),
    );
    const { code, stderr } = await run([script]);
    expect(stderr).toBe('');
    expect(code).toBe(0);
    expect(lines(file)).toEqual(Array.from({ length: 2000 }, (_, i) => `REPORT ${i}`));
  });
});

async function waitForPort(port: number, timeoutMs = 20_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const ok = await new Promise<boolean>((resolve) => {
      const s = net.connect(port, '127.0.0.1');
      s.once('connect', () => {
        s.destroy();
        resolve(true);
      });
      s.once('error', () => resolve(false));
    });
    if (ok) return;
    if (Date.now() > deadline) throw new Error(`port ${port} not listening in time`);
    await new Promise((r) => setTimeout(r, 25));
  }
}

describe('the host stopped right after a burst', () => {
  it('has a REPORT line for every request it answered', async () => {
    const handlerDir = mkdtempSync(join(dir, 'handler-'));
    writeFileSync(
      join(handlerDir, 'handler.mjs'),
      `export const handler = async () => { console.log('handled'); return { statusCode: 200, body: 'ok' }; };\n`,
    );
    const port = await freePort();
    const logFile = join(dir, 'burst.log');
    const host = spawn(
      process.execPath,
      ['--import', 'tsx', join(ROOT, 'bench', 'peer-lab-host.ts'), handlerDir, String(port), logFile],
      { cwd: ROOT, stdio: 'ignore' },
    );
    const exited = new Promise<number | null>((resolve) => host.once('exit', (code) => resolve(code)));
    try {
      await waitForPort(port);
      const url = `http://127.0.0.1:${port}/lab/hello`;
      const headers = await signRequest(
        { method: 'GET', url, headers: {} },
        LOCAL_CALLER,
        LOCAL_CALLER.region,
      );
      const agent = new http.Agent({ keepAlive: true, maxSockets: 8 });
      const get = () =>
        new Promise<number | undefined>((resolve, reject) => {
          http
            .get(url, { agent, headers }, (res) => {
              res.resume();
              res.on('end', () => resolve(res.statusCode));
            })
            .on('error', reject);
        });
      const statuses = await Promise.all(Array.from({ length: 60 }, get));
      // Stopped the moment the last answer is in: lines still pending must reach the file.
      host.kill('SIGTERM');
      agent.destroy();
      expect(statuses.every((s) => s === 200)).toBe(true);
      expect(await exited).toBe(0);
    } finally {
      host.kill('SIGKILL');
    }
    const log = lines(logFile);
    const reports = log.filter((l) => l.startsWith('REPORT RequestId: '));
    expect(reports).toHaveLength(60);
    // Each REPORT follows its own START and END, and the function's own line is there too.
    for (const r of reports) {
      const id = /^REPORT RequestId: (\S+)/.exec(r)?.[1];
      expect(log).toContain(`START RequestId: ${id} Version: $LATEST`);
      expect(log).toContain(`END RequestId: ${id}`);
    }
    expect(log.filter((l) => l.endsWith('\tINFO\thandled'))).toHaveLength(60);
  });
});
