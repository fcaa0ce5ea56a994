/**
 * A preload (`node --import tsx --import ./targets/load-env.ts ...`): registers the target
 * modules LAB_TARGET_MODULES names before the program's own modules run. `npm run local` uses it:
 * local/ sits below this folder and cannot import the registry itself.
 */
import { loadTargetModules } from './registry';

await loadTargetModules();
