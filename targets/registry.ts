/**
 * The registry mechanism: one call adds a target to every consumer. Every target is a module
 * in a folder of its own (targets/<name>/index.ts exports `target`), named by the project's
 * list (core/target-modules.ts) or by LAB_TARGET_MODULES, and loaded by loadTargetModules,
 * which every CLI, the CDK app and the test set-up call before reading the target list; or
 * registered with registerTarget. This module loads no construct library and no engine, and a
 * module gives its heavy halves (CDK constructs, engines) as loaders, so `--help` stays light.
 */
import { pathToFileURL } from 'node:url';
import { parseTargetCost, registerTargetCost, type TargetCost } from '../core/cost-registry';
import { registerTargetInfo, TARGET_NAME, type TargetInfo } from '../core/lab-functions';
import { loadPriceFile, type PriceFile } from '../core/price-file';
import { TARGET_MODULES_ENV, targetModulePaths } from '../core/target-modules';
import { registerTargetContext, type TargetContextKey } from '../lib/targets/context-keys';
import { registerTargetDefinition } from '../lib/targets/registry';
import type { TargetDefinitionSource } from '../lib/targets/types';
import { registerTargetLinks, type TargetLinks } from '../local/network/profiles';
import { registerLocalTarget } from '../local/targets/registry';
import type { LocalTarget } from '../local/targets/types';

/** Everything a target is, in one value: what its folder's index exports as `target`. */
export interface TargetModule {
  /** The target's key: routes, function names, --targets (core/lab-functions.ts TARGET_NAME). */
  readonly name: string;
  /** Label, notice, baseline, and the handler entry of its functions (one export per operation). */
  readonly info: TargetInfo;
  /**
   * Its resources in the data stack and each function's binding (least privilege); a loader
   * (`() => import('./cdk.js').then(...)`) keeps the construct library out of a CLI's start.
   */
  readonly definition: TargetDefinitionSource;
  /** Its local engine; lazyLocalTarget keeps the engine code out of a CLI's start. */
  readonly local: LocalTarget;
  /** The network model's link for it: round trip and service time, cited. */
  readonly links: TargetLinks;
  /**
   * The units it bills, how to meter them and their prices per region (core/cost-registry.ts).
   * @default - it bills nothing of its own: its rows cost Lambda and API Gateway only
   */
  readonly cost?: TargetCost;
  /** The CDK context keys its definition reads (config.targetContext), by key. @default none */
  readonly context?: Readonly<Record<string, TargetContextKey>>;
}

const LOADED = new Set<string>();

/** Adds the target to every registry; a name the lab already knows is refused and changes nothing. */
export function registerTarget(module: TargetModule): void {
  // A bad cost part is refused before any registry changes (a bad name is the vocabulary's to name).
  if (module.cost && TARGET_NAME.test(module.name)) parseTargetCost(module.name, module.cost);
  // The vocabulary first: it refuses a bad or taken name before any other registry changes.
  registerTargetInfo(module.name, module.info);
  registerTargetDefinition(module.name, module.definition);
  registerLocalTarget(module.name, module.local);
  registerTargetLinks(module.name, module.links);
  if (module.cost) registerTargetCost(module.name, module.cost);
  if (module.context) registerTargetContext(module.name, module.context);
}

function isTargetModule(value: unknown): value is TargetModule {
  if (typeof value !== 'object' || value === null) return false;
  const m = value as Record<string, unknown>;
  return (
    typeof m.name === 'string' &&
    typeof m.info === 'object' &&
    (typeof m.definition === 'object' || typeof m.definition === 'function') &&
    typeof m.local === 'object' &&
    typeof m.links === 'object'
  );
}

/**
 * Imports and registers every target module LAB_TARGET_MODULES names (each exports `target`, a
 * TargetModule), once per process however often it is called. Returns the names it registered.
 */
export async function loadTargetModules(env: NodeJS.ProcessEnv = process.env): Promise<string[]> {
  const names: string[] = [];
  const paths = targetModulePaths(env).filter((p) => !LOADED.has(p));
  // Imported side by side, registered in the list's order (the order of TARGETS).
  const imported = paths.map((path) =>
    import(pathToFileURL(path).href).then(
      (m: { target?: unknown }) => m.target,
      (e: Error) => new Error(`${TARGET_MODULES_ENV}: cannot load ${path}: ${e.message}`),
    ),
  );
  for (const [i, path] of paths.entries()) {
    const exported: unknown = await imported[i];
    if (exported instanceof Error) throw exported;
    if (!isTargetModule(exported))
      throw new Error(
        `${TARGET_MODULES_ENV}: ${path} exports no \`target\` with name, info, definition, local and links`,
      );
    registerTarget(exported);
    LOADED.add(path);
    names.push(exported.name);
  }
  return names;
}

/**
 * A region's price file joined with every target's prices, the project's target modules loaded
 * first: a test may call the load runner or local Power Tuning in a process that never loaded them.
 */
export async function loadLabPrices(path?: string): Promise<PriceFile> {
  await loadTargetModules();
  return loadPriceFile(path);
}
