/**
 * What one hop costs on this machine when the process at the other end has gone to sleep (an
 * IPC round trip to a Lambda-Node process): the floor under the host figures `npm run bench`
 * prints in its sections 2 and 9. Printed, never asserted.
 */
import { fork, spawn } from 'node:child_process';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { defaultLambdaNode } from '../local/host/execution-environment';
import { ladderOf } from '../runs/latency-histogram';

export interface IpcWakeCost {
  /** IPC round trip to a Lambda-Node process that answers at once, sent back to back, p50 ms. */
  readonly backToBackMs: number;
  /** The same round trip after the process (and this one) sat idle for ~1 ms, p50 ms. */
  readonly afterIdleMs: number;
  /**
   * The same idle round trip when a third process swept EVICT_BYTES of memory in the gap, as the
   * engines, the network model and the SDK do during a database call: the caches start cold.
   */
  readonly afterEvictionMs: number;
}

/** More than this machine's caches hold (2 cores: 32 MB of L3 or less), less than a database call touches. */
const EVICT_BYTES = 16 * 1024 * 1024;

/**
 * What one hop costs on this machine when the process at the other end has gone to sleep: the
 * floor under any host that runs environments as processes (the lab's request makes four such
 * hops: client to host, host to environment and back, host to client). Blocks of back-to-back
 * and idle-separated round trips alternate, so load falls on both.
 */
export async function ipcWakeCost(node = defaultLambdaNode().path): Promise<IpcWakeCost> {
  const child = fork(join(import.meta.dirname, 'relay-floor-host.mjs'), ['0', node, 'child'], {
    execPath: node,
    execArgv: [],
  });
  const roundTrip = () =>
    new Promise<number>((resolve) => {
      const t = performance.now();
      child.once('message', () => resolve(performance.now() - t));
      child.send({ type: 'invoke' });
    });
  // Touches one byte per 64-byte cache line of its buffer on each message, then answers.
  const sweeper = spawn(
    process.execPath,
    [
      '-e',
      `const b = Buffer.alloc(${EVICT_BYTES}); process.on('message', () => { for (let i = 0; i < b.length; i += 64) b[i]++; process.send(0); });`,
    ],
    { stdio: ['ignore', 'ignore', 'inherit', 'ipc'] },
  );
  const sweep = () =>
    new Promise<void>((resolve) => {
      sweeper.once('message', () => resolve());
      sweeper.send(0);
    });
  const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
  try {
    const hot: number[] = [];
    const idle: number[] = [];
    const evicted: number[] = [];
    for (let i = 0; i < 200; i++) await roundTrip();
    for (let block = 0; block < 10; block++) {
      for (let i = 0; i < 200; i++) hot.push(await roundTrip());
      for (let i = 0; i < 30; i++) {
        await sleep(1);
        idle.push(await roundTrip());
        await sleep(1);
        await sweep();
        evicted.push(await roundTrip());
      }
    }
    const p50 = (xs: number[]) => ladderOf(xs)?.p50 ?? Number.NaN;
    return { backToBackMs: p50(hot), afterIdleMs: p50(idle), afterEvictionMs: p50(evicted) };
  } finally {
    child.kill();
    sweeper.kill();
  }
}
