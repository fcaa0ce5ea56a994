/**
 * The whole lab on one machine: cdk.out/ (synthesized when missing or stale) -> a local
 * DynamoDB engine -> the network model (TLS + round trips) -> one function pool per
 * function -> an API Gateway-like server on 127.0.0.1. `stop()` ends everything it started.
 */
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { PROJECT_ROOT } from '../core/paths';
import { type Assembly, readAssembly } from './assembly/cloud-assembly';
import { ensureSynth } from './assembly/ensure-synth';
import { localEnvironment } from './assembly/environment';
import {
  createTable,
  type Engine,
  type EngineKind,
  LOCAL_CREDENTIALS,
  LOCAL_REGION,
  startEngine,
} from './engines';
import { FunctionPool, type PoolStats } from './host/function-pool';
import { DEFAULT_RTT_MS } from './network/network-model';
import { type NetworkModelProcess, startNetworkModelProcess } from './network/network-model-process';
import { type ApiServer, compileRoute, startApiServer } from './server/api-gateway';
import { ensureCertificates } from './tls/certificates';

export const DEFAULT_PORT = 3100;
export const DEFAULT_MAX_ENVIRONMENTS = 10;
export const LOCAL_TARGETS = ['dynamodb'] as const;
/**
 * The one principal the local API accepts (IAM authorization, as deployed). Not a secret:
 * it only opens the local lab on 127.0.0.1, and keeps anonymous requests out as AWS would.
 */
export const LOCAL_CALLER = {
  accessKeyId: 'LABLOCALCALLER',
  secretAccessKey: 'lab-local-only',
  region: 'us-east-1',
} as const;

/** What the Artillery processor needs to sign requests for the local lab (see lab-processor.mjs). */
export function localSigningEnv(): Record<string, string> {
  return {
    LAB_SIGV4_REGION: LOCAL_CALLER.region,
    LAB_SIGV4_ACCESS_KEY_ID: LOCAL_CALLER.accessKeyId,
    LAB_SIGV4_SECRET_ACCESS_KEY: LOCAL_CALLER.secretAccessKey,
  };
}

export interface LabOptions {
  /** @default DEFAULT_PORT; 0 picks a free port */
  readonly port?: number;
  /** @default 'dynalite' */
  readonly engine?: EngineKind;
  /** Keep the engine's data on disk here; in memory when absent. */
  readonly dataDir?: string;
  /** @default DEFAULT_RTT_MS */
  readonly rttMs?: number;
  /** Context flags for the synth (keepAlive, provisionedConcurrency, memorySize...). */
  readonly context?: Record<string, string>;
  /** Per function. @default DEFAULT_MAX_ENVIRONMENTS */
  readonly maxEnvironments?: number;
  /** cdk.out folder. @default <project>/cdk.out */
  readonly outdir?: string;
  /** Progress and notices. */
  readonly log?: (line: string) => void;
  /** Every function log line (START/END/REPORT and the function's own), by function. */
  readonly onFunctionLog?: (fn: string, line: string) => void;
  readonly onRequest?: Parameters<typeof startApiServer>[0]['onRequest'];
}

export interface RunningLab {
  readonly url: string;
  readonly assembly: Assembly;
  /** The engine now running (replaced by restartEngine). */
  readonly engine: Engine;
  readonly model: NetworkModelProcess;
  readonly caCertPath: string;
  /** Local names of the tables created in the engine. */
  readonly tableNames: readonly string[];
  readonly pools: ReadonlyMap<string, FunctionPool>;
  stats(): Record<string, PoolStats>;
  /** Stops the engine (if it still runs) and starts it again on the same port and data folder. */
  restartEngine(): Promise<Engine>;
  stop(): Promise<void>;
}

/** The -c flags the local lab synthesizes with: only local targets, no Power Tuning. */
export function localSynthContext(context: Record<string, string> = {}): Record<string, string> {
  // Both variants by default: the lab's first question is what keep-alive is worth.
  return { keepAlive: 'both', ...context, targets: LOCAL_TARGETS.join(','), powerTuning: 'false' };
}

/** Local table name: what CloudFormation would call it, minus the random suffix. */
const localName = (stack: string, logicalId: string) => `${stack}-${logicalId}`;

export async function startLab(opts: LabOptions = {}): Promise<RunningLab> {
  const log = opts.log ?? (() => {});
  const outdir = opts.outdir ?? join(PROJECT_ROOT, 'cdk.out');
  const requested = (opts.context?.targets ?? 'dynamodb').split(',').map((t) => t.trim());
  const unsupported = requested.filter((t) => !(LOCAL_TARGETS as readonly string[]).includes(t));
  if (unsupported.includes('qldb')) {
    log(
      'QLDB cannot run locally (no local engine exists, and the service reached end of support): serving dynamodb only.',
    );
  }
  const context = localSynthContext(opts.context);

  const cleanup: (() => Promise<void>)[] = [];
  const stopAll = async () => {
    for (const fn of cleanup.reverse()) await fn().catch(() => {});
    cleanup.length = 0;
  };
  try {
    await ensureSynth(outdir, context, log);
    const assembly = readAssembly(outdir);
    if (assembly.routes.length === 0) throw new Error(`${outdir} has no API routes to serve`);

    if (opts.dataDir) mkdirSync(opts.dataDir, { recursive: true });
    let engine = await startEngine({ kind: opts.engine ?? 'dynalite', dataDir: opts.dataDir, log });
    cleanup.push(() => engine.stop());
    log(`Engine ${engine.kind} (pid ${engine.pid}) on ${engine.endpoint}`);

    const tables = Object.entries(assembly.templates).flatMap(([stack, t]) =>
      Object.entries(t.Resources)
        .filter(([, r]) => r.Type === 'AWS::DynamoDB::Table')
        .map(([id]) => localName(stack, id)),
    );
    for (const table of tables) await createTable(engine.endpoint, table);

    const certs = await ensureCertificates(join(PROJECT_ROOT, '.cache', 'tls'));
    const rttMs = opts.rttMs ?? DEFAULT_RTT_MS;
    const model = await startNetworkModelProcess(
      { upstreamHost: '127.0.0.1', upstreamPort: engine.port, rttMs, tls: certs },
      log,
    );
    cleanup.push(() => model.close());
    log(
      `Network model on ${model.url}: TLS 1.3, ${rttMs} ms round trip, new connections pay TCP + TLS set-up`,
    );

    const pools = new Map<string, FunctionPool>();
    for (const route of assembly.routes) {
      const fn = route.function;
      if (pools.has(fn.name)) continue;
      const env = localEnvironment(fn, assembly.templates, {
        nameOf: (stack, id, type) => (type === 'AWS::DynamoDB::Table' ? localName(stack, id) : undefined),
        extra: {
          AWS_REGION: LOCAL_REGION,
          AWS_DEFAULT_REGION: LOCAL_REGION,
          AWS_ACCESS_KEY_ID: LOCAL_CREDENTIALS.accessKeyId,
          AWS_SECRET_ACCESS_KEY: LOCAL_CREDENTIALS.secretAccessKey,
          AWS_ENDPOINT_URL_DYNAMODB: model.url,
          NODE_EXTRA_CA_CERTS: certs.caCertPath,
        },
      });
      const pool = new FunctionPool({
        fn,
        env,
        maxEnvironments: opts.maxEnvironments ?? DEFAULT_MAX_ENVIRONMENTS,
        log: (line) => opts.onFunctionLog?.(fn.name, line),
      });
      pools.set(fn.name, pool);
      cleanup.push(() => pool.stop());
    }
    await Promise.all([...pools.values()].map((p) => p.start()));

    const routes = assembly.routes.map((r) => compileRoute(r, pools.get(r.function.name) as FunctionPool));
    const server: ApiServer = await startApiServer({
      routes,
      stage: assembly.stage,
      host: '127.0.0.1',
      port: opts.port ?? DEFAULT_PORT,
      iam: { credentials: LOCAL_CALLER },
      onRequest: opts.onRequest,
    });
    cleanup.push(() => server.close());

    const restartEngine = async () => {
      await engine.stop();
      engine = await startEngine({ kind: engine.kind, port: engine.port, dataDir: opts.dataDir, log });
      for (const table of tables) await createTable(engine.endpoint, table);
      return engine;
    };
    return {
      url: server.url,
      assembly,
      get engine() {
        return engine;
      },
      restartEngine,
      model,
      caCertPath: certs.caCertPath,
      tableNames: tables,
      pools,
      stats: () => Object.fromEntries([...pools].map(([name, p]) => [name, p.snapshot()])),
      stop: stopAll,
    };
  } catch (e) {
    await stopAll();
    throw e;
  }
}
