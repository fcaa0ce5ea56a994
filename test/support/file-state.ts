/**
 * Set-up for every fast-tier file that shares its worker process with others (vitest.config.ts):
 * what a file changes in the process's environment and working directory ends with the file,
 * as it did when each file had a process of its own. vi.stubEnv, vi.stubGlobal, fake timers
 * and plain assignments to process.env are all undone after the file's own afterAll hooks.
 */
import { afterAll, vi } from 'vitest';

// Setup files run again before each file, even in a shared worker: this is the file's start.
const env = { ...process.env };
const cwd = process.cwd();

afterAll(() => {
  vi.unstubAllEnvs();
  vi.unstubAllGlobals();
  vi.useRealTimers();
  for (const name of Object.keys(process.env)) if (!(name in env)) delete process.env[name];
  Object.assign(process.env, env);
  if (process.cwd() !== cwd) process.chdir(cwd);
});
