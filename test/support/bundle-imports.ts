import { builtinModules } from 'node:module';

const BUILTINS = new Set(builtinModules.flatMap((m) => [m, `node:${m}`]));

/**
 * The Node built-ins a bundle imports statically (`from '...'`). The lab's bundles take every
 * built-in through CommonJS (lib/constructs/bundle-format.ts: on Node 24 a static import of a
 * built-in costs init time), so the only one is node:module, for the require shim.
 */
export function staticBuiltinImports(code: string): string[] {
  return [...code.matchAll(/\bfrom\s*["']([^"']+)["']/g)].map((m) => m[1]).filter((m) => BUILTINS.has(m));
}
