/**
 * Where a process finds the target modules it registers beside the built-ins: the variable
 * names them, so a child process (the synth `cdk synth` runs, a CLI a test spawns) registers
 * the same ones as its parent. Pure path arithmetic: the loading is targets/registry.ts's.
 */
import { isAbsolute, resolve } from 'node:path';
import { PROJECT_ROOT } from './paths';

/** A comma list of target module files, absolute or from the project root. */
export const TARGET_MODULES_ENV = 'LAB_TARGET_MODULES';

/** The target modules the variable names, as absolute paths, in its order. */
export function targetModulePaths(env: NodeJS.ProcessEnv = process.env): string[] {
  return (env[TARGET_MODULES_ENV] ?? '')
    .split(',')
    .map((s) => s.trim())
    .filter((s) => s !== '')
    .map((s) => (isAbsolute(s) ? s : resolve(PROJECT_ROOT, s)));
}
