/**
 * How the lab bundles a function, apart from the CDK so that tools can build bundles the same
 * way without loading aws-cdk-lib (bench/lab-bundle.ts).
 */
import type { BuildOptions } from 'esbuild';

/**
 * ESM output, because the handlers await their client's first connection at the top level
 * (lambda/shared/prewarm.ts), which CommonJS cannot. CommonJS dependencies (the QLDB driver)
 * still call require() for Node built-ins, which ESM lacks unless the bundle provides it.
 */
export const ESM_REQUIRE_SHIM =
  "import{createRequire as __cr}from'node:module';const require=__cr(import.meta.url);";

/** Lambda passes credentials in env vars; the full default chain is ~90 KB of dead weight. */
export const CREDENTIALS_ALIAS = {
  '@aws-sdk/credential-provider-node': './lambda/shared/env-credentials.ts',
} as const;

/**
 * The Node built-ins the bundles' code and dependencies import. On Node 24 a static ESM
 * `import` of a built-in costs init time that taking the same module through CommonJS does not
 * (`npm run bench -- --only-init` prints it: over an empty handler, per bundle), so each is
 * aliased to a one-line CommonJS module in lambda/shared/node-builtins/ that returns
 * `process.getBuiltinModule(...)`: esbuild then inlines the module and no static import of a
 * built-in is left (test/infra/cdk-synth.test.ts checks every bundle). getBuiltinModule, not
 * require(): esbuild would alias a require of the same name back to the shim.
 */
export const NODE_BUILTINS = [
  'async_hooks',
  'buffer',
  'console',
  'crypto',
  'dns',
  'dns/promises',
  'events',
  'fs',
  'fs/promises',
  'http',
  'http2',
  'https',
  'net',
  'os',
  'path',
  'path/posix',
  'path/win32',
  'perf_hooks',
  'process',
  'stream',
  'stream/consumers',
  'stream/promises',
  'stream/web',
  'string_decoder',
  'timers',
  'timers/promises',
  'tls',
  'url',
  'util',
  'util/types',
  'zlib',
] as const;

/**
 * Both spellings of each built-in (`node:http` and `http`) to its shim. esbuild matches an alias
 * as a package prefix (`util` would take `util/types` to `util.cjs/types`), so every subpath a
 * dependency imports needs its own entry: a missing one fails the build, never the bundle.
 */
export const NODE_BUILTIN_ALIAS: Readonly<Record<string, string>> = Object.fromEntries(
  NODE_BUILTINS.flatMap((name) => {
    const shim = `./lambda/shared/node-builtins/${name.replace(/[/_]/g, '-')}.cjs`;
    return [
      [`node:${name}`, shim],
      [name, shim],
    ];
  }),
);

/** Every alias a lab bundle is built with. */
export const BUNDLE_ALIAS: Readonly<Record<string, string>> = { ...CREDENTIALS_ALIAS, ...NODE_BUILTIN_ALIAS };

/**
 * esbuild's options for every lab bundle (PerfFunction adds the entry, Lambda's Node as the
 * target, the project as the working folder and source maps when asked; bench/lab-bundle.ts
 * the same): ESM, minified, `module` before `main` so the SDK's ES modules tree-shake, the SDK
 * bundled and pinned rather than the runtime's copy, the require shim and the aliases.
 */
export const LAB_ESBUILD_OPTIONS = {
  bundle: true,
  platform: 'node',
  format: 'esm',
  mainFields: ['module', 'main'],
  minify: true,
  banner: { js: ESM_REQUIRE_SHIM },
  // The aliases' paths are relative to the project (absWorkingDir).
  alias: BUNDLE_ALIAS,
  logLevel: 'silent',
} as const satisfies BuildOptions;
