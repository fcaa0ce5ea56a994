/**
 * The host's reclaim window as a user sets it: `--reclaim-idle S` in npm run load and npm run
 * local, `local.reclaimIdleS` in runLoad. A bad value is refused with a line naming it, before
 * any lab, synth or engine starts (bad input changes nothing).
 */
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { PROJECT_ROOT } from '../../core/paths';
import { runLoad } from '../../loadtest/run-load';

// Node with tsx's loader and the target modules' preload, as npm run local starts it (load.ts registers them itself).
const run = (script: string, ...args: string[]) =>
  spawnSync(process.execPath, ['--import', 'tsx', '--import', './targets/load-env.ts', script, ...args], {
    cwd: PROJECT_ROOT,
    encoding: 'utf8',
    timeout: 60_000,
  });

describe('--reclaim-idle', () => {
  it.each([
    ['load', 'loadtest/load.ts', '0', /^load: --reclaim-idle must be a number from 0\.1 to 86400, got "0"$/],
    [
      'local',
      'local/cli/local.ts',
      'abc',
      /^local: --reclaim-idle must be an integer from 1 to 86400, got "abc"$/,
    ],
  ])(
    'npm run %s refuses a bad window with exit 2 and one line, starting nothing',
    (_name, script, value, line) => {
      const r = run(script, '--reclaim-idle', value);
      expect(r.status).toBe(2);
      expect(r.stdout).not.toMatch(/Synthesizing|Lab API/);
      expect(r.stderr.trim().split('\n')).toEqual([expect.stringMatching(line)]);
    },
  );

  it('runLoad refuses a window that is not positive before it writes anything', async () => {
    const root = mkdtempSync(join(tmpdir(), 'lab-reclaim-'));
    const out = join(root, 'run');
    try {
      await expect(
        runLoad({
          outDir: out,
          targets: ['dynamodb'],
          variants: ['on'],
          operations: ['get'],
          durationS: 1,
          ratePerS: 1,
          where: 'local',
          local: { reclaimIdleS: -1 },
          log: () => {},
          logError: () => {},
        }),
      ).rejects.toThrow('local.reclaimIdleS must be a number of seconds > 0, got -1');
      expect(existsSync(out)).toBe(false);
    } finally {
      rmSync(root, { recursive: true, force: true });
    }
  });
});
