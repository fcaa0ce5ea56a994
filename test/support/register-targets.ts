/**
 * Set-up for every test file: registers the target modules (the project's list and any
 * LAB_TARGET_MODULES names), as every CLI and the CDK app do before reading the target list.
 * Once per process: a worker that runs several files registers them once.
 */
import { loadTargetModules } from '../../targets/registry';

await loadTargetModules();
