/**
 * Where a process finds the target modules it registers beside the built-ins. The project's
 * own list below is the one registry entry a target added for good needs; the variable adds
 * more for one run (a test's throwaway target) and reaches child processes (the synth `cdk
 * synth` runs, a CLI a test spawns), so they register the same ones as their parent. Pure path
 * arithmetic: the loading is targets/registry.ts's.
 */
import { isAbsolute, resolve } from 'node:path';
import { PROJECT_ROOT } from './paths';

/** A comma list of target module files, absolute or from the project root. */
export const TARGET_MODULES_ENV = 'LAB_TARGET_MODULES';

/**
 * The registry entries of targets kept in this project beyond the four built-ins: each a
 * folder's `index.ts` exporting `target` (a TargetModule), from the project root, e.g.
 * `'targets/mydb/index.ts'`. Every CLI, the CDK app and the lab's synth load them.
 */
export const PROJECT_TARGET_MODULES: readonly string[] = [
  'targets/dynamodb/index.ts',
  'targets/qldb/index.ts',
  'targets/redis/index.ts',
  'targets/dsql/index.ts',
  'targets/valkey/index.ts',
  'targets/aurorapg/index.ts',
];

/** The target modules to load, as absolute paths: the project's list, then the variable's, each once. */
export function targetModulePaths(
  env: NodeJS.ProcessEnv = process.env,
  project: readonly string[] = PROJECT_TARGET_MODULES,
): string[] {
  const named = [...project, ...(env[TARGET_MODULES_ENV] ?? '').split(',')]
    .map((s) => s.trim())
    .filter((s) => s !== '')
    .map((s) => (isAbsolute(s) ? s : resolve(PROJECT_ROOT, s)));
  return [...new Set(named)];
}
