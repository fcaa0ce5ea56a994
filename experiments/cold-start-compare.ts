/**
 * What bundling saves a function, measured as the QLDB article measured it: the deployment
 * zip's bytes and the cold start's Init Duration, bundled (the synthesized asset the lab runs)
 * against unbundled (local/assembly/unbundled.ts: the handler transpiled, its node_modules
 * copied). Both run in the same local lab as the same function (its environment variables,
 * Node, memory and CPU share): each cold start is a fresh pool of one environment that answers
 * one request, and the two builds alternate, so a loaded machine's drift falls on both. Both
 * pay the same modeled sandbox and runtime start (local/host/cold-start-model.ts), the lab's.
 */
import { appendFileSync, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { coldStartModelLine } from '../local/host/cold-start-model';
import { possibleLabFunctions } from '../tune/tune-args';
import type { ColdStartPlan, ColdStartView } from './types';

export interface ColdStartCompareOptions {
  readonly plan: ColdStartPlan;
  readonly outDir: string;
  readonly lab?: {
    readonly profile?: string;
    readonly rttMs?: number;
    readonly rttByTarget?: Readonly<Partial<Record<string, number>>>;
    readonly seed?: number;
    readonly nodePath?: string;
    readonly coldStartModel?: boolean;
  };
  readonly signal?: AbortSignal;
  readonly log: (line: string) => void;
}

const initOf = (line: string): number | undefined => {
  const m = /\tInit Duration: ([0-9.]+) ms/.exec(line);
  return m ? Number(m[1]) : undefined;
};

export async function runColdStartCompare(o: ColdStartCompareOptions): Promise<Omit<ColdStartView, 'wallS'>> {
  const { plan } = o;
  const spec = possibleLabFunctions().find((s) => s.key === plan.function);
  if (!spec) throw new Error(`unknown function ${plan.function}`);
  const { buildUnbundled, zipFolder } = await import('../local/assembly/unbundled');
  const { proxyEvent, tuningPerson } = await import('../tune/default-payload');
  const { startLab } = await import('../local/lab');
  mkdirSync(o.outDir, { recursive: true });
  const unbundled = await buildUnbundled(spec.entry, join(o.outDir, 'unbundled'));
  const unbundledZip = zipFolder(unbundled.dir, join(o.outDir, `${plan.function}-unbundled.zip`));
  o.log(
    `  unbundled: ${unbundled.packages.length} packages, ${unbundled.files} files, ${(unbundled.bytes / 1e6).toFixed(2)} MB; zip ${(unbundledZip / 1e6).toFixed(2)} MB`,
  );
  const logFile = join(o.outDir, 'lambda-logs.log');
  writeFileSync(logFile, '');
  const lab = await startLab({
    port: 0,
    ...o.lab,
    context: { targets: spec.target, keepAlive: 'on' },
    log: (line) => {
      if (line.startsWith('warning')) o.log(line);
    },
  });
  try {
    const bundledFn = lab.assembly.functions.find((f) => f.name === plan.function);
    const live = lab.pools.get(plan.function);
    if (!bundledFn || !live) throw new Error(`the local lab has no function ${plan.function}`);
    const bundledZip = zipFolder(bundledFn.assetDir, join(o.outDir, `${plan.function}-bundled.zip`));
    // The Person the get reads, so each cold start answers 200 as a real read.
    const createKey = plan.function.replace(`-${spec.operation}`, '-create');
    const create = possibleLabFunctions().find((s) => s.key === createKey);
    const person = tuningPerson(spec.target);
    if (create) await lab.pools.get(createKey)?.invoke(proxyEvent(create, person));
    const event = proxyEvent(spec, person);
    const builds = {
      bundled: bundledFn,
      unbundled: { ...bundledFn, name: `${plan.function}-unbundled`, assetDir: unbundled.dir },
    } as const;
    const initMs: Record<keyof typeof builds, number[]> = { bundled: [], unbundled: [] };
    // One uncounted pair first: the machine's first start of each build (files not yet in the
    // page cache, the cgroup new) would count against whichever ran first.
    for (let i = -1; i < plan.runs; i++) {
      // Alternate which goes first, so neither always follows the other's teardown.
      const order = i % 2 === 0 ? (['bundled', 'unbundled'] as const) : (['unbundled', 'bundled'] as const);
      for (const which of order) {
        if (o.signal?.aborted) throw new Error('interrupted');
        let report: string | undefined;
        const pool = lab.poolLike(plan.function, builds[which], (line) => {
          appendFileSync(logFile, `${which}\t${line}\n`);
          if (line.startsWith('REPORT RequestId:')) report = line;
        });
        try {
          const inv = await pool.invoke(event);
          if (!inv.ok) throw new Error(`${which} ${plan.function} failed (${inv.reason}): ${inv.message}`);
          const status = Number((inv.response as { statusCode?: unknown } | null)?.statusCode);
          if (status !== 200) throw new Error(`${which} ${plan.function} answered ${status}, not 200`);
        } finally {
          await pool.stop();
        }
        const init = report === undefined ? undefined : initOf(report);
        if (init === undefined)
          throw new Error(`${which} ${plan.function}: its REPORT line has no Init Duration`);
        if (i >= 0) initMs[which].push(init);
      }
    }
    const memoryMb = live.memoryMb;
    const view = {
      plan,
      memoryMb,
      node: lab.node.version,
      memoryModel: lab.memoryModel.modeled
        ? lab.memoryModel.mechanism
        : `not modeled (${lab.memoryModel.reason})`,
      coldStartModel: coldStartModelLine(lab.coldStart),
      bundled: { zipBytes: bundledZip, initMs: initMs.bundled },
      unbundled: {
        zipBytes: unbundledZip,
        initMs: initMs.unbundled,
        packages: unbundled.packages,
        files: unbundled.files,
        bytes: unbundled.bytes,
      },
    };
    writeFileSync(join(o.outDir, 'cold-starts.json'), `${JSON.stringify(view, null, 2)}\n`);
    return view;
  } finally {
    await lab.stop();
  }
}
