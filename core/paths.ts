/** Where things live in a clone. Pure path arithmetic: importing this loads nothing else. */
import { join, resolve } from 'node:path';

export const PROJECT_ROOT = resolve(import.meta.dirname, '..');
export const CDK_OUT = join(PROJECT_ROOT, 'cdk.out');
/** Downloads, certificates, generated files: never committed. */
export const CACHE_DIR = join(PROJECT_ROOT, '.cache');
export const RESULTS_DIR = join(PROJECT_ROOT, 'results');
