/**
 * How the lab bundles a function, apart from the CDK so that tools can build bundles the same
 * way without loading aws-cdk-lib (bench/lab-bundle.ts).
 */

/**
 * ESM output lets esbuild tree-shake the SDK; CommonJS dependencies (the QLDB driver) still
 * call require() for Node built-ins, which ESM lacks unless the bundle provides it.
 */
export const ESM_REQUIRE_SHIM =
  "import{createRequire as __cr}from'node:module';const require=__cr(import.meta.url);";

/** Lambda passes credentials in env vars; the full default chain is ~90 KB of dead weight. */
export const CREDENTIALS_ALIAS = {
  '@aws-sdk/credential-provider-node': './lambda/shared/env-credentials.ts',
} as const;
