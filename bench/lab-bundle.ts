/** esbuild options that build a bundle as PerfFunction does (ESM, minified, Lambda's Node, the require shim, the aliases). */
import type { BuildOptions } from 'esbuild';
import { PROJECT_ROOT } from '../core/paths';
import { LAB_ESBUILD_OPTIONS } from '../lib/constructs/bundle-format';
import { LAMBDA_NODE_MAJOR } from '../local/runtime/lambda-node';

export const LAB_BUNDLE_OPTIONS = {
  ...LAB_ESBUILD_OPTIONS,
  target: `node${LAMBDA_NODE_MAJOR}`,
  absWorkingDir: PROJECT_ROOT,
} as const satisfies BuildOptions;
