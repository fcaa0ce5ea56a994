/**
 * What `npm run local` shows once the lab is up: one line per service (engine, address in its
 * clients' scheme, the one command that reaches it with a standard client), the API's base URL
 * with one line per target, the environment file. Engine logs and network-model events go to
 * the log file instead. Pure: test/local/start-screen.test.ts checks the lines, and the
 * local-cloud test runs the commands.
 */
import type { Target } from '../../core/lab-functions';
import { OPERATION_ROUTES, OPERATIONS, targetLabel } from '../../core/lab-functions';
import { shellWord } from '../lab-env';
import { localTarget } from '../targets';
import { curlSigV4Example, type ExampleRoute } from './curl-example';

/** One running target as the screen shows it. */
export interface ScreenTarget {
  readonly target: Target;
  /** The engine, e.g. `dynalite`, `redis-server`. */
  readonly engine: string;
  /** The network model's https://127.0.0.1:PORT. */
  readonly modelUrl: string;
  /** LocalDatabase.clientEnv: the environment file's lines for this target. */
  readonly env: Record<string, string>;
  /** The tables (or ledgers) the lab made for it (LocalDatabase.tables). */
  readonly tables?: readonly string[];
}

export interface ScreenInput {
  readonly targets: readonly ScreenTarget[];
  readonly apiUrl: string;
  readonly routes: readonly (ExampleRoute & { readonly functionName: string })[];
  readonly caCertPath: string;
  readonly envFile: string;
  /** The command that prints the environment file's lines. */
  readonly envCommand: string;
  /** The command line that runs a target's subcommand of `npm run local` against this lab. */
  labCommand(name: string): string;
  /** The lab's region. */
  readonly region: string;
}

/** A cell of at least `width` characters, and two spaces after one that does not fit. */
const column = (text: string, width: number): string =>
  text.length >= width - 1 ? `${text}  ` : text.padEnd(width);

/** Each service's line: label, engine, address, command. */
export function serviceLines(input: ScreenInput): string[] {
  const ca = shellWord(input.caCertPath);
  return input.targets.map(({ target, engine, modelUrl, env, tables = [] }) => {
    // A target with no standard client of its engine shows its address alone.
    const client = localTarget(target).clientCommand?.({
      engine,
      modelUrl,
      env,
      tables,
      caCert: ca,
      caCertPath: input.caCertPath,
      labCommand: input.labCommand,
      region: input.region,
    });
    const address = client?.address ?? modelUrl;
    const command = client?.command ?? '';
    return `${column(targetLabel(target), 12)}${column(client?.engine ?? engine, 24)}${column(address, 32)}${command}`;
  });
}

/** `/dynamodb/keepalive-on/person/{govId}` -> dynamodb, keepalive-on, /person/{govId}. */
function splitPath(path: string): { target: string; variant?: string; rest: string } {
  const m = /^\/([^/]+)(?:\/(keepalive-(?:on|off)))?(\/.*)?$/.exec(path);
  return m ? { target: m[1] as string, variant: m[2], rest: m[3] ?? '' } : { target: path, rest: '' };
}

/** One line per target: its base paths and each operation with its method and path. */
export function apiTargetLines(routes: readonly ExampleRoute[]): string[] {
  const byTarget = new Map<string, { variants: Set<string>; ops: Set<string> }>();
  for (const r of routes) {
    const { target, variant, rest } = splitPath(r.path);
    const entry = byTarget.get(target) ?? { variants: new Set(), ops: new Set() };
    if (variant) entry.variants.add(variant);
    entry.ops.add(`${r.method} ${rest}`);
    byTarget.set(target, entry);
  }
  return [...byTarget].map(([target, { variants, ops }]) => {
    const base =
      variants.size === 0 ? `/${target}` : `/${target}/{${[...variants].sort().reverse().join(',')}}`;
    const listed = OPERATIONS.filter((op) => {
      const { method, path } = OPERATION_ROUTES[op];
      return ops.has(`${method} /${path}`);
    }).map((op) => {
      const { method, path } = OPERATION_ROUTES[op];
      return `${op} ${method} /${path}${op === 'query' ? '?govIdType=T&limit=N' : ''}`;
    });
    return `  ${base}  ${listed.join(', ')}`;
  });
}

/** Every route, one per line (`--routes`). */
export function routeLines(apiUrl: string, routes: readonly (ExampleRoute & { functionName: string })[]) {
  return routes.map((r) => `  ${r.method.padEnd(6)} ${apiUrl}${r.path}  -> ${r.functionName}`);
}

/** The screen between start-up and "Ctrl-C to stop". */
export function startScreen(input: ScreenInput): string[] {
  const curl = curlSigV4Example(input.apiUrl, input.routes);
  return [
    '',
    ...serviceLines(input),
    `${column('API', 12)}${column('API Gateway (IAM auth)', 24)}${column(input.apiUrl, 32)}${curl ?? ''}`,
    ...apiTargetLines(input.routes),
    '  (every route: npm run local -- --routes)',
    '',
    `Environment for your own tools (AWS SDKs and CLIs, the databases' own clients): ${input.envFile}`,
    `  source it, or in another shell: eval "$(${input.envCommand})"`,
  ];
}

/** Node's release lines and when each reaches end of life (nodejs.org/en/about/previous-releases). */
const NODE_END_OF_LIFE: Record<number, string> = {
  18: '2025-04-30',
  20: '2026-04-30',
  22: '2027-04-30',
  24: '2028-04-30',
};

/** One line when the host's Node is past its end of life, else undefined. */
export function nodeEndOfLifeNotice(version: string, now = new Date()): string | undefined {
  const major = Number(/^v?(\d+)/.exec(version)?.[1]);
  const eol = NODE_END_OF_LIFE[major] ?? (major < 18 ? 'before 2025' : undefined);
  if (eol === undefined || (eol !== 'before 2025' && now < new Date(`${eol}T00:00:00Z`))) return undefined;
  return `Node ${version} reached end of life ${eol === 'before 2025' ? eol : `on ${eol}`}: the lab runs on it, but upgrade to Node 22 or 24 (the functions run on Lambda's Node either way)`;
}
