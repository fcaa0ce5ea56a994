/**
 * What the local lab needs from each database target: start its engine, make what the
 * deployed stack would make (tables, ledgers, schema), and tell a function where to find it.
 * Each target's module gives one (targets/<name>/local.ts, wrapped by lazyLocalTarget).
 */
import type { Assembly } from '../assembly/cloud-assembly';
import type { EngineCheck, FindEngineContext } from '../engines/find-engine';
import type { StartTls } from '../network/network-model';
import type { CertificatePaths } from '../tls/certificates';
import type { SeedStory } from './seed-story';

export interface LocalTargetOptions {
  readonly assembly: Assembly;
  /**
   * Keep the data here, synced to disk, after the lab stops (each target in its own subfolder);
   * absent: in the run data (local/run-dir.ts labDataDir), kept across an engine's restart only.
   */
  readonly dataDir?: string;
  /**
   * Keep the data in memory only, as the engines can (PostgreSQL: synchronous commit off): a
   * restart loses it. Only to measure what the run data costs (npm run bench). @default false
   */
  readonly inMemory?: boolean;
  /** The `--engine` choice, when it is one of this target's engineKinds. @default its first */
  readonly engine?: string;
  /** Servers close connections idle this long. @default 60 (the provisioned-concurrency article) */
  readonly idleTimeoutS?: number;
  readonly certs: CertificatePaths;
  readonly log: (line: string) => void;
}

/** Where a function reaches the network model in front of an engine. */
export interface ModelAddress {
  /** https://localhost:PORT */
  readonly url: string;
  readonly port: number;
}

export interface LocalDatabase {
  /** What the engine is, for progress lines: `dynalite`, `redis-server 7.0.15`, ... */
  readonly description: string;
  /** A line the start screen prints under the services (what a user must know of this engine). */
  readonly notice?: string;
  /** Engine endpoint on 127.0.0.1 (plain), for tests and tools that bypass the model. */
  readonly endpoint: string;
  /** The port the network model forwards to. */
  readonly upstreamPort: number;
  /** How clients start TLS with the model in front. @default 'immediate' */
  readonly modelStartTls?: StartTls;
  readonly pid: number;
  /** The tables (or ledgers) the lab made for this target, by local name. */
  readonly tables: readonly string[];
  /** Physical name of a template resource locally, or undefined when not this target's. */
  nameOf(stackName: string, logicalId: string, type: string): string | undefined;
  /** Variables every function of this target gets: endpoints, secrets. */
  functionEnv(model: ModelAddress): Record<string, string>;
  /**
   * What a standard client outside the lab sets to reach this target through its model: the
   * lines of the lab's environment file (AWS_ENDPOINT_URL_<SERVICE>, REDIS_URL, PG*).
   */
  clientEnv(model: ModelAddress): Record<string, string>;
  /** Runs after the model is up: what CloudFormation would create before the functions run. */
  prepare?(model: ModelAddress, run: CustomResourceRunner): Promise<void>;
  /**
   * One cheap request the engine answers only while it serves (ListTables, PING, SELECT 1, the
   * control plane): resolves once answered; rejects on an error or once `signal` aborts. The
   * lab's watchdog sends it with a deadline to notice a hung engine; without one, it watches
   * only that the process lives.
   */
  health?(signal: AbortSignal): Promise<void>;
  /**
   * Writes the news site's stories straight into the engine with the target's own client,
   * never through the API (loadtest/seed-stories.ts). Only targets that serve a top 10 have it.
   */
  seedStories?(stories: readonly SeedStory[], signal: AbortSignal): Promise<void>;
  /** Stops the engine and starts it again on the same port and data. */
  restart(): Promise<void>;
  stop(): Promise<void>;
}

/** Runs a custom resource's real bundle with a CloudFormation Create event, as CloudFormation would. */
export type CustomResourceRunner = (
  resourceType: string,
  env: Record<string, string>,
) => Promise<Record<string, unknown>[]>;

/** What the start screen shows of a running target: its address in its clients' scheme and one command. */
export interface ClientCommand {
  /** @default the model's URL */
  readonly address?: string;
  /** The one command that reaches it with a standard client. */
  readonly command: string;
  /** The engine column, when shorter than the engine's description. @default the description */
  readonly engine?: string;
}

export interface ClientCommandInput {
  /** The engine's description, parenthesized details removed. */
  readonly engine: string;
  /** The network model's https://127.0.0.1:PORT. */
  readonly modelUrl: string;
  /** LocalDatabase.clientEnv: the environment file's lines for this target. */
  readonly env: Readonly<Record<string, string>>;
  /** The tables (or ledgers) the lab made for it (LocalDatabase.tables). */
  readonly tables: readonly string[];
  /** The lab CA's certificate, as a shell word. */
  readonly caCert: string;
  /** The lab CA's certificate path, unquoted. */
  readonly caCertPath: string;
  /** The command line that runs `npm run local`'s subcommand `name` (LocalTarget.commands) against this lab. */
  labCommand(name: string): string;
  /** The lab's region (AWS_REGION of its environment file). */
  readonly region: string;
}

/** A subcommand of `npm run local` a target adds, run against the running lab. */
export interface LabCommand {
  /** Its line in `npm run local -- --help`. */
  readonly help: string;
  /** What it prints, given the running lab's environment file's variables. */
  run(env: Readonly<Record<string, string>>): Promise<string>;
}

export interface LocalTarget {
  /**
   * CDK context the lab's synth passes when this target runs, e.g. a secret's ARN the local
   * stand-in answers for. @default none
   */
  readonly synthContext?: Readonly<Record<string, string>>;
  /** The start screen's line for it: its address and one command. @default the model's URL, no command */
  clientCommand?(input: ClientCommandInput): ClientCommand;
  /**
   * The engines it can run locally, its default first: `--engine` picks another (light: listed
   * in --help). @default one engine, no choice
   */
  readonly engineKinds?: readonly string[];
  /** Subcommands of `npm run local` it adds, by name (light: listed in --help). @default none */
  readonly commands?: Readonly<Record<string, LabCommand>>;
  /**
   * Whether this target's engine can run here (npm package, the lab's own, or a system binary),
   * and if not, what is missing and the one command that adds it. Starts nothing.
   */
  findEngine(ctx: FindEngineContext): EngineCheck | Promise<EngineCheck>;
  start(opts: LocalTargetOptions): Promise<LocalDatabase>;
}

/** Local name of a resource: what CloudFormation would call it, minus the random suffix. */
export const localName = (stack: string, logicalId: string) => `${stack}-${logicalId}`;

/** What the lab reads of an engine process: where it listens and which process it is. */
export interface EngineAddress {
  readonly endpoint: string;
  readonly port: number;
  readonly pid: number;
}

/**
 * A target's database with endpoint, upstreamPort and pid read from the engine running now:
 * restart() replaces the engine, so they are getters over `current`, never copies.
 */
export function withEngine(
  current: () => EngineAddress,
  rest: Omit<LocalDatabase, 'endpoint' | 'upstreamPort' | 'pid'>,
): LocalDatabase {
  return Object.defineProperties(rest, {
    endpoint: { get: () => current().endpoint, enumerable: true },
    upstreamPort: { get: () => current().port, enumerable: true },
    pid: { get: () => current().pid, enumerable: true },
  }) as LocalDatabase;
}

/** The local names of a template's resources of one type, e.g. every AWS::QLDB::Ledger. */
export function localNamesOf(assembly: Assembly, type: string): string[] {
  return Object.entries(assembly.templates).flatMap(([stack, t]) =>
    Object.entries(t.Resources)
      .filter(([, r]) => r.Type === type)
      .map(([id]) => localName(stack, id)),
  );
}

/**
 * A local target whose engine code loads on first use: registering it (every CLI does, before
 * `--help`) loads only the light fields given here.
 */
export function lazyLocalTarget(
  load: () => Promise<LocalTarget>,
  light: Pick<LocalTarget, 'synthContext' | 'clientCommand' | 'commands' | 'engineKinds'> = {},
): LocalTarget {
  let loaded: Promise<LocalTarget> | undefined;
  const get = () => {
    loaded ??= load();
    return loaded;
  };
  return {
    ...light,
    findEngine: async (ctx) => (await get()).findEngine(ctx),
    start: async (opts) => (await get()).start(opts),
  };
}
