/**
 * The lab's vocabulary, shared by the stacks, the local lab, the load runner and the report:
 * which database targets exist, which operations each serves, what its functions are
 * called and which routes reach them. Every target, the built-ins included, is a module that
 * adds itself at run time through targets/registry.ts (core/target-modules.ts lists them), which
 * calls registerTargetInfo here: this file names none.
 */

export interface TargetInfo {
  /** How messages and reports name the database. */
  readonly label: string;
  /** A line every output about this target carries (summary, report, npm run local). */
  readonly notice?: string;
  /**
   * The reports give the other targets' database time as a multiple of this one's (the
   * articles' reference). One target at most.
   */
  readonly baseline?: boolean;
  /**
   * The target's handler entry, from the project root: one module exporting one handler per
   * operation it serves, named after the operation (`create`, `get`, ...).
   * @default `targets/<target>/handler.ts`
   */
  readonly handlerEntry?: string;
  /**
   * The operations of SELECTIVE_OPERATIONS it serves (a workload an experiment adds for the
   * databases its article compared); it serves every other operation anyway. @default none
   */
  readonly selectiveOperations?: readonly Operation[];
  /** The zipped size its function bundles must stay under (npm run sizes). @default no budget */
  readonly bundleBudgetBytes?: number;
  /**
   * Whether its functions open their connection at init when asked (`prewarmConnection`);
   * false: they ignore the flag (its document says why). @default true
   */
  readonly prewarms?: boolean;
  /**
   * Loads what checks the deployed database serves the operations an experiment calls (an
   * index ACTIVE, say) before anything is measured against the deployed stack.
   * @default nothing to check beyond the functions
   */
  readonly deployedCheck?: () => Promise<DeployedDatabaseCheck>;
}

/**
 * One line per thing the deployed database lacks for `operations` on `table` (the functions'
 * TABLE_NAME, else the data stack's TableName output); [] when it serves them all.
 * `clientConfig` is the SDK client configuration (region, credentials) the check's clients take.
 */
export type DeployedDatabaseCheck = (
  table: string,
  operations: readonly Operation[],
  clientConfig: object,
) => Promise<string[]>;
/**
 * A target's key. A string, not a union of the built-ins: target modules register more at run
 * time (targets/registry.ts), so the set is known when the process has loaded them, not when
 * it compiles. isTarget says whether a string is one.
 */
export type Target = string;

const TARGET_INFO = new Map<string, TargetInfo>();

/**
 * Every target this process knows, in the order they registered (the project's list first:
 * core/target-modules.ts). One array, grown in place by registerTargetInfo, so a module that
 * took it at load sees a target registered later.
 */
export const TARGETS: string[] = [...TARGET_INFO.keys()];

export const isTarget = (s: string): boolean => TARGET_INFO.has(s);

/** A target key: lower-case letters and digits, starting with a letter (function keys parse it back). */
export const TARGET_NAME = /^[a-z][a-z0-9]*$/;

/** Adds a target to the vocabulary; a name already known or not a TARGET_NAME is refused. */
export function registerTargetInfo(name: string, info: TargetInfo): void {
  if (!TARGET_NAME.test(name))
    throw new Error(
      `target name ${JSON.stringify(name)}: lower-case letters and digits, starting with a letter`,
    );
  if (TARGET_INFO.has(name)) throw new Error(`target ${name} is already registered`);
  if (info.baseline && TARGETS.some((t) => TARGET_INFO.get(t)?.baseline))
    throw new Error(`target ${name}: a baseline target is already registered (one at most)`);
  TARGET_INFO.set(name, info);
  TARGETS.push(name);
}

/** What the registry says of a target; undefined for a key the lab does not know. */
export const targetInfo = (t: string): TargetInfo | undefined => TARGET_INFO.get(t);

/** The help's note on --prewarm-connection: the targets that ignore it, if any. */
export function prewarmNote(): string {
  const not = TARGETS.filter((t) => TARGET_INFO.get(t)?.prewarms === false).map((t) => targetLabel(t));
  return not.length === 0 ? '' : ` (not ${not.join(', ')})`;
}

/** TARGET_INFO's label, or the key itself for a target the lab does not know (an old results folder). */
export const targetLabel = (t: string): string => TARGET_INFO.get(t)?.label ?? t;

/** The target's notice (QLDB's), if it has one. */
export const targetNotice = (t: string): string | undefined => TARGET_INFO.get(t)?.notice;

/** The handler entry of a target's functions, from the project root. */
export const handlerEntryOf = (t: string): string =>
  TARGET_INFO.get(t)?.handlerEntry ?? `targets/${t}/handler.ts`;

/** The zipped-size budget of a target's bundles, if it has one. */
export const bundleBudgetOf = (t: string): number | undefined => TARGET_INFO.get(t)?.bundleBudgetBytes;

/**
 * The target a comparison divides by: the registry's baseline when it ran, else the first of
 * those that ran in the registry's order (a target the lab does not know comes last).
 */
export function baselineTarget(ran: readonly string[]): string | undefined {
  const rank = (t: string) => (isTarget(t) ? TARGETS.indexOf(t) : TARGETS.length);
  return ran.find((t) => targetInfo(t)?.baseline) ?? [...ran].sort((a, b) => rank(a) - rank(b))[0];
}

/** What one deployed function uses; the `both` flag deploys one of each. */
export type KeepAliveVariant = 'on' | 'off';
export const KEEP_ALIVE_VARIANTS: readonly KeepAliveVariant[] = ['on', 'off'];

/** The newest TLS version a function's database clients offer (an article's year), by LAB_TLS_MAX_VERSION. */
export type TlsMaxVersion = 'TLSv1.2' | 'TLSv1.3';
export const TLS_MAX_VERSION_ENV = 'LAB_TLS_MAX_VERSION';

/** Every operation with its REST method and the path under `/{target}/...`. */
export const OPERATION_ROUTES = {
  create: { method: 'POST', path: 'person' },
  get: { method: 'GET', path: 'person/{govId}' },
  overwrite: { method: 'PUT', path: 'person/{govId}' },
  update: { method: 'PATCH', path: 'person/{govId}' },
  // The newest Persons of a GovIdType: `?govIdType=X&limit=N` (shares the /person resource with create).
  query: { method: 'GET', path: 'person' },
  // Ten Persons written one after the other in one invocation: the keep-alive article's
  // "10 sequential DynamoDB operations in a single function". Body: {"persons": [10 Persons]}.
  put10: { method: 'POST', path: 'persons' },
  // The news site's workload (news-top10): a read of a story (a Person) that counts a view, and
  // the ten most viewed with their counts. Served by the article's targets (SELECTIVE_OPERATIONS).
  view: { method: 'POST', path: 'person/{govId}/view' },
  top10: { method: 'GET', path: 'top10' },
} as const satisfies Record<string, { method: string; path: string }>;

export type Operation = keyof typeof OPERATION_ROUTES;
export const OPERATIONS = Object.keys(OPERATION_ROUTES) as Operation[];

/**
 * Operations only some targets serve: a workload an experiment adds for the databases its
 * article compared, served by the targets whose TargetInfo.selectiveOperations names it. Every
 * target serves the others. put10 reproduces the DynamoDB keep-alive article; view and top10 the
 * news site's article; on the other targets they would be functions nobody measures.
 */
export const SELECTIVE_OPERATIONS: readonly Operation[] = ['put10', 'view', 'top10'];

/** The targets this process knows that serve `operation` (every one, unless it is selective). */
export const targetsServing = (operation: Operation): string[] =>
  TARGETS.filter((t) => servesOperation(t, operation));

/**
 * Operations deployed for some keep-alive variants only. The article behind view and top10 kept
 * its clients alive; with `keepAlive=both` and every target, off variants of them would take the
 * API stack past CloudFormation's 500 resources (about 9 per function: function, version,
 * alias, role, policy, log group, method, 2 permissions). Not listed: every variant.
 */
export const OPERATION_VARIANTS: Partial<Record<Operation, readonly KeepAliveVariant[]>> = {
  view: ['on'],
  top10: ['on'],
};

/**
 * Whether `target` has a function for `operation` (SELECTIVE_OPERATIONS and its
 * selectiveOperations), in `variant` when given (OPERATION_VARIANTS).
 */
export function servesOperation(target: string, operation: Operation, variant?: KeepAliveVariant): boolean {
  const variants = OPERATION_VARIANTS[operation];
  return (
    (!SELECTIVE_OPERATIONS.includes(operation) ||
      (TARGET_INFO.get(target)?.selectiveOperations?.includes(operation) ?? false)) &&
    (variant === undefined || variants === undefined || variants.includes(variant))
  );
}

export interface LabFunction {
  readonly target: Target;
  readonly operation: Operation;
  readonly keepAlive: KeepAliveVariant;
  /** e.g. `dynamodb-create`, or `dynamodb-create-keepalive-off` when both variants deploy. */
  readonly key: string;
  /** PascalCase construct id and output prefix, e.g. `DynamodbCreate`. */
  readonly id: string;
  /** The target's handler entry, from the project root (handlerEntryOf). */
  readonly entry: string;
  /** The entry's export that serves this operation: the operation's name. */
  readonly handlerExport: Operation;
  /** REST resource path, e.g. `/dynamodb/person` or `/dynamodb/keepalive-off/person/{govId}`. */
  readonly path: string;
  readonly method: (typeof OPERATION_ROUTES)[Operation]['method'];
}

const pascal = (s: string) =>
  s
    .split('-')
    .map((p) => p.charAt(0).toUpperCase() + p.slice(1))
    .join('');

/** With a single variant the path has none; with both, `keepalive-on|off` is a path segment. */
export function basePath(target: string, variant: KeepAliveVariant, bothVariants: boolean): string {
  return bothVariants ? `/${target}/keepalive-${variant}` : `/${target}`;
}

export function labFunctions(
  targets: readonly Target[],
  variants: readonly KeepAliveVariant[],
  operations: readonly Operation[] = OPERATIONS,
): LabFunction[] {
  const both = variants.length > 1;
  const out: LabFunction[] = [];
  for (const target of targets) {
    for (const keepAlive of variants) {
      for (const operation of operations) {
        if (!servesOperation(target, operation, keepAlive)) continue;
        const key = functionKey(target, operation, both ? keepAlive : undefined);
        const route = OPERATION_ROUTES[operation];
        out.push({
          target,
          operation,
          keepAlive,
          key,
          id: pascal(key),
          entry: handlerEntryOf(target),
          handlerExport: operation,
          path: `${basePath(target, keepAlive, both)}/${route.path}`,
          method: route.method,
        });
      }
    }
  }
  return out;
}

export function functionKey(target: string, operation: Operation, keepAlive?: KeepAliveVariant): string {
  return `${target}-${operation}${keepAlive ? `-keepalive-${keepAlive}` : ''}`;
}

export interface FunctionKeyParts {
  readonly target: string;
  readonly operation: Operation;
  /** undefined when a single variant is deployed (no suffix). */
  readonly keepAlive?: KeepAliveVariant;
}

/** Reads `dynamodb-create-keepalive-off` style function keys back into their parts. */
export function parseFunctionKey(key: string): FunctionKeyParts | undefined {
  const m = /^([a-z0-9]+)-([a-z0-9]+)(?:-keepalive-(on|off))?$/.exec(key);
  if (!m || !Object.hasOwn(OPERATION_ROUTES, m[2])) return undefined;
  return { target: m[1], operation: m[2] as Operation, keepAlive: m[3] as KeepAliveVariant | undefined };
}
