/**
 * A CLI in miniature for test/core/interrupt.test.ts: installs the lab's interrupt handler,
 * starts one child the way the lab does (spawnChild: own process group, recorded in the run
 * directory), makes a temp folder in the run directory, and registers a stopper.
 *   node --import tsx interrupt-fixture.ts graceful MARKER   the stopper ends the child, writes MARKER after 300 ms
 *   node --import tsx interrupt-fixture.ts hang              the stopper never finishes
 * Prints one JSON line {"runDir", "childPid", "tempDir"} once ready.
 */
import { writeFileSync } from 'node:fs';
import { runCli } from '../../core/errors';
import { installInterruptHandler, stopOnInterrupt } from '../../core/interrupt';
import { spawnChild } from '../../local/engines/managed-child';
import { labTempDir, runDir } from '../../local/run-dir';

const [mode, marker] = process.argv.slice(2);

runCli(
  async () => {
    const signal = installInterruptHandler();
    // A child that ignores SIGTERM, as a busy engine might: only its group's SIGKILL ends it.
    const child = await spawnChild('sh', ['-c', 'trap "" TERM; while :; do sleep 1; done'], {
      name: 'stubborn',
    });
    const tempDir = await labTempDir('lab-fixture-');
    stopOnInterrupt(async () => {
      if (mode === 'hang') return new Promise<void>(() => {});
      await child.stop(200);
      await new Promise((r) => setTimeout(r, 300));
      if (marker) writeFileSync(marker, 'stopped');
    });
    console.log(JSON.stringify({ runDir: runDir(), childPid: child.pid, tempDir }));
    // Stay up (as a lab serving requests) until the signal; then unwind at once, as a run does
    // whose stopper is still running: runCli must wait for it.
    const keepAlive = setInterval(() => {}, 60_000);
    await new Promise<void>((resolve) => signal.addEventListener('abort', () => resolve()));
    clearInterval(keepAlive);
    return 0;
  },
  { program: 'fixture' },
);
