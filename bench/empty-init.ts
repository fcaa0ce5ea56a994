/**
 * An empty handler's cold start on the local host, with the cold-start model off and on
 * (local/host/cold-start-model.ts), at each memory size under its cgroup CPU share: Init Duration
 * as REPORT gives it, and the local runtime start the model tops up. Off and on alternate, so a
 * loaded machine's drift falls on both. Printed, never asserted.
 *
 *   npx tsx bench/empty-init.ts [--memory 128,1024] [--runs 10] [--runtime nodejs24.x] [--arch arm64]
 */
import { parseArgs } from 'node:util';
import type { AssemblyFunction } from '../local/assembly/cloud-assembly';
import { openCgroups } from '../local/host/cgroups';
import { type Architecture, coldStartModel, isArchitecture } from '../local/host/cold-start-model';
import { defaultLambdaNode, ExecutionEnvironment } from '../local/host/execution-environment';
import { buildEmptyHandler, median } from './init-over-empty';

const { values } = parseArgs({
  options: {
    memory: { type: 'string', default: '128,1024' },
    runs: { type: 'string', default: '10' },
    runtime: { type: 'string', default: 'nodejs24.x' },
    arch: { type: 'string', default: 'arm64' },
  },
});
const memories = values.memory.split(',').map(Number);
const runs = Number(values.runs);
if (!isArchitecture(values.arch)) throw new Error(`--arch must be x86_64 or arm64, got ${values.arch}`);
const model = coldStartModel(values.runtime, values.arch as Architecture);

const dir = await buildEmptyHandler();
const cgroups = await openCgroups();
const node = defaultLambdaNode();
console.log(
  `${cgroups.model.modeled ? `CPU share by ${cgroups.model.mechanism}` : `memory not modeled (${cgroups.model.reason})`}; Node ${node.version}; model ${model.runtime} ${model.architecture}: ${model.published ? `${model.published.initMs} ms published` : 'no published figure'}`,
);
try {
  for (const memoryMb of memories) {
    const fn: AssemblyFunction = {
      stackName: 'Bench',
      logicalId: 'Empty',
      name: 'empty-handler',
      assetDir: dir,
      handler: 'index.handler',
      runtime: values.runtime,
      architecture: values.arch as Architecture,
      memorySize: memoryMb,
      timeoutSeconds: 10,
      environment: {},
      provisionedConcurrency: 0,
    };
    const off: number[] = [];
    const on: number[] = [];
    const runtimeStart: number[] = [];
    // One uncounted pair first: the first start after a build reads files from disk.
    for (let i = -1; i < runs; i++) {
      for (const modeled of i % 2 === 0 ? [false, true] : [true, false]) {
        const env = await ExecutionEnvironment.start({
          fn,
          env: {},
          node,
          memoryMb,
          initType: 'on-demand',
          ...(cgroups.tree ? { cgroups: { tree: cgroups.tree, hostCores: cgroups.model.hostCores } } : {}),
          ...(modeled ? { coldStart: model } : {}),
          onLog: () => {},
          onExit: () => {},
        });
        await env.stop();
        if (i < 0) continue;
        (modeled ? on : off).push(env.initMs);
        runtimeStart.push(env.runtimeStartMs);
      }
    }
    const f = (xs: number[]) =>
      `p50 ${median(xs).toFixed(1)} ms (min ${Math.min(...xs).toFixed(1)}, max ${Math.max(...xs).toFixed(1)})`;
    console.log(`${memoryMb} MB, ${runs} cold starts each:`);
    console.log(`  model off: Init Duration ${f(off)}`);
    console.log(`  model on:  Init Duration ${f(on)}`);
    console.log(`  local runtime start (process start to the bundle's import): ${f(runtimeStart)}`);
  }
} finally {
  await cgroups.tree?.remove();
}
