/**
 * The run's local DynamoDB engines, started once and shared by every test file that only needs
 * one with a table of its own (handlers, workloads, conformance). DynamoDB Local is a JVM: each
 * file starting its own cost seconds of both cores. A test file runs in a worker process that
 * ends with the file, so the engines belong to the Vitest process: global-setup.ts serves
 * `GET /<kind>` here, starting each kind on the first ask, and stops them when the run ends.
 * Tests that stop, kill or restart an engine start their own (engines.test.ts, the fault tests).
 *
 * The same server answers `GET /ready/<task>` for global-setup.ts's background tasks (the
 * conformance clients' install): 200 once the task is done, 500 with its error if it failed.
 */
import { randomUUID } from 'node:crypto';
import { createServer, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { inject } from 'vitest';
import { type Engine, type EngineKind, startEngine } from '../../targets/dynamodb/engine';

declare module 'vitest' {
  export interface ProvidedContext {
    /** Where a test file asks for the run's shared engines (global-setup.ts). */
    sharedEnginesUrl: string;
  }
}

const KINDS: readonly EngineKind[] = ['dynalite', 'dynamodb-local'];

/**
 * How long a file's hook waits for a shared engine. The first file to ask waits for DynamoDB
 * Local's fetch (global-setup.ts) and its JVM start, which has its own bound (90 s,
 * targets/dynamodb/dynamodb-local.ts) and, past it, an error quoting the engine's output: a hook
 * that gave up first (a 60 s hook did, on a loaded 2-core machine) hid that error. Measured here
 * at a load average of 20-24: 13-15 s to start alone, 19-36 s waited by the first file beside
 * three others (the line below prints it); the bound is the engine's own bound plus its fetch and
 * the table, and 5x the longest wait seen.
 */
export const SHARED_ENGINE_HOOK_MS = 180_000;

export interface EngineBroker {
  readonly url: string;
  stop(): Promise<void>;
}

export interface EngineBrokerOptions {
  /** Background set-up a test can wait for by name (setupTask). */
  readonly tasks?: Readonly<Record<string, Promise<unknown>>>;
  /** What must finish before an engine of this kind starts (DynamoDB Local's fetch). */
  readonly before?: Readonly<Partial<Record<EngineKind, Promise<unknown>>>>;
}

/** global-setup.ts: serves the shared engines and the set-up tasks; stop() ends every engine it started. */
export async function startEngineBroker(opts: EngineBrokerOptions = {}): Promise<EngineBroker> {
  const engines = new Map<EngineKind, Promise<Engine>>();
  const answer = (res: ServerResponse, work: Promise<unknown>, body: (v: unknown) => string) =>
    work.then(
      (v) => res.writeHead(200, { 'content-type': 'application/json' }).end(body(v)),
      (error: unknown) => res.writeHead(500).end(error instanceof Error ? error.message : String(error)),
    );
  const server = createServer((req, res) => {
    const task = /^\/ready\/(.+)$/.exec(req.url ?? '')?.[1];
    if (task !== undefined) {
      const work = opts.tasks?.[task];
      if (!work) {
        res
          .writeHead(404)
          .end(`no set-up task ${task}; expected one of: ${Object.keys(opts.tasks ?? {}).join(', ')}`);
        return;
      }
      answer(res, work, () => '{}');
      return;
    }
    const kind = KINDS.find((k) => req.url === `/${k}`);
    if (!kind) {
      res.writeHead(404).end(`no shared engine at ${req.url}; expected one of: ${KINDS.join(', ')}`);
      return;
    }
    let engine = engines.get(kind);
    if (!engine) {
      const asked = Date.now();
      engine = Promise.resolve(opts.before?.[kind])
        .then(() => startEngine({ kind }))
        .then((started) => {
          // What a hook bound is measured against: the wait of the first file that asked.
          console.info(`shared-engines: ${kind} ready ${Date.now() - asked} ms after the first file asked`);
          return started;
        });
      engines.set(kind, engine);
    }
    answer(res, engine, (e) =>
      JSON.stringify({ endpoint: (e as Engine).endpoint, port: (e as Engine).port }),
    );
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    async stop() {
      server.close();
      await Promise.all(
        [...engines.values()].map((e) =>
          e.then(
            (engine) => engine.stop(),
            () => {},
          ),
        ),
      );
    },
  };
}

/** Waits for one of global-setup.ts's background tasks; throws its error when it failed. */
export async function setupTask(name: string): Promise<void> {
  const res = await fetch(`${inject('sharedEnginesUrl')}/ready/${name}`);
  if (!res.ok) throw new Error(`the test run's set-up task ${name} failed: ${await res.text()}`);
}

export interface SharedEngine {
  readonly kind: EngineKind;
  /** http://127.0.0.1:PORT */
  readonly endpoint: string;
  readonly port: number;
}

/** The run's engine of this kind, started by the first file that asks. Never stop it: other files use it. */
export async function sharedEngine(kind: EngineKind): Promise<SharedEngine> {
  const res = await fetch(`${inject('sharedEnginesUrl')}/${kind}`);
  const body = await res.text();
  if (!res.ok) throw new Error(`the shared ${kind} did not start: ${body}`);
  return { kind, ...(JSON.parse(body) as { endpoint: string; port: number }) };
}

/** A table name no other test file uses on a shared engine. */
export function tableOfItsOwn(prefix: string): string {
  return `${prefix}-${randomUUID().slice(0, 8)}`;
}
