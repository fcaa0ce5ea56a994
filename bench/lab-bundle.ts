/** esbuild options that build a bundle as PerfFunction does (ESM, minified, Lambda's Node, the require shim, the aliases). */
import type { BuildOptions } from 'esbuild';
import { PROJECT_ROOT } from '../core/paths';
import { BUNDLE_ALIAS, ESM_REQUIRE_SHIM } from '../lib/constructs/bundle-format';
import { LAMBDA_NODE_MAJOR } from '../local/runtime/lambda-node';

export const LAB_BUNDLE_OPTIONS = {
  bundle: true,
  platform: 'node',
  format: 'esm',
  target: `node${LAMBDA_NODE_MAJOR}`,
  mainFields: ['module', 'main'],
  minify: true,
  banner: { js: ESM_REQUIRE_SHIM },
  // The aliases' paths are relative to the project, as the CDK passes them.
  absWorkingDir: PROJECT_ROOT,
  alias: BUNDLE_ALIAS,
  logLevel: 'silent',
} as const satisfies BuildOptions;
