/**
 * What a bundle and its client add to init: each bundle's Init Duration minus an empty
 * handler's, both started by the same ExecutionEnvironment machinery on the same Node and
 * host, with the same environment variables. An environment's init also holds Node's own
 * start-up and the runtime worker, which no bundle can shrink; the difference is what the
 * bundle's code (SDK, client, config) costs. Starts alternate empty / bundle, so drift on a
 * shared machine falls on both, and the figure is the p50 of the paired differences.
 */
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { build } from 'esbuild';
import { CACHE_DIR } from '../core/paths';
import type { AssemblyFunction } from '../local/assembly/cloud-assembly';
import { ExecutionEnvironment } from '../local/host/execution-environment';
import type { NodeRuntime } from '../local/runtime/lambda-node';
import { LAB_BUNDLE_OPTIONS } from './lab-bundle';

const EMPTY_HANDLER = "export const handler = async () => ({ statusCode: 200, body: '' });\n";
// The lab bundles' banner (lib/constructs/perf-function.ts): part of every bundle's init, so of the empty one's too.

/** Builds the empty handler as the lab bundles are built (ESM, minified, node24) into .cache/; returns its folder. */
export async function buildEmptyHandler(dir = join(CACHE_DIR, 'empty-handler')): Promise<string> {
  mkdirSync(dir, { recursive: true });
  await build({
    ...LAB_BUNDLE_OPTIONS,
    stdin: { contents: EMPTY_HANDLER, loader: 'js', resolveDir: dir },
    outfile: join(dir, 'index.mjs'),
  });
  return dir;
}

export interface InitTarget {
  readonly fn: AssemblyFunction;
  /** The environment the lab gives the function's environments. */
  readonly env: Record<string, string>;
}

export interface InitOverEmpty {
  readonly fn: string;
  readonly initMs: number[];
  readonly emptyMs: number[];
  /** init(bundle) - init(empty), one per pair of fresh environments. */
  readonly overEmptyMs: number[];
  readonly p50: { readonly init: number; readonly empty: number; readonly overEmpty: number };
}

async function initOnce(
  fn: AssemblyFunction,
  env: Record<string, string>,
  node: NodeRuntime,
): Promise<number> {
  const e = await ExecutionEnvironment.start({
    fn,
    env,
    node,
    initType: 'on-demand',
    onLog: () => {},
    onExit: () => {},
  });
  await e.stop();
  return e.initMs;
}

/** Nearest-rank median: the differences may be negative, which a latency histogram cannot hold. */
export function median(xs: readonly number[]): number {
  if (xs.length === 0) return Number.NaN;
  const sorted = [...xs].sort((a, b) => a - b);
  return sorted[Math.ceil(sorted.length / 2) - 1];
}

/** `runs` fresh environments of each bundle, each paired with a fresh empty-handler environment. */
export async function initOverEmpty(
  targets: readonly InitTarget[],
  opts: { readonly runs: number; readonly node: NodeRuntime; readonly emptyDir: string },
): Promise<InitOverEmpty[]> {
  const rows: InitOverEmpty[] = [];
  for (const { fn, env } of targets) {
    const empty: AssemblyFunction = {
      ...fn,
      name: 'empty-handler',
      assetDir: opts.emptyDir,
      handler: 'index.handler',
    };
    const initMs: number[] = [];
    const emptyMs: number[] = [];
    const overEmptyMs: number[] = [];
    for (let i = 0; i < opts.runs; i++) {
      const e = await initOnce(empty, env, opts.node);
      const b = await initOnce(fn, env, opts.node);
      emptyMs.push(e);
      initMs.push(b);
      overEmptyMs.push(b - e);
    }
    rows.push({
      fn: fn.name,
      initMs,
      emptyMs,
      overEmptyMs,
      p50: { init: median(initMs), empty: median(emptyMs), overEmpty: median(overEmptyMs) },
    });
  }
  return rows;
}
