/**
 * The Node binary that runs local execution environments: the major of the deployed
 * runtime (nodejs24.x), pinned in local/runtime/node24/package-lock.json and installed by
 * `npm ci` (postinstall). Its own package, so its `node` never shadows the Node that runs
 * the project's tools. Platforms the registry has no binary for fall back to this Node,
 * with one line that names both versions.
 */
import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { UsageError } from '../../core/errors';
import { PROJECT_ROOT } from '../../core/paths';

/** The major of Lambda's runtime the stacks deploy (lib/constructs/perf-function.ts). */
export const LAMBDA_NODE_MAJOR = 24;
export const LAMBDA_RUNTIME = `nodejs${LAMBDA_NODE_MAJOR}.x`;
const RUNTIME_DIR = join(PROJECT_ROOT, 'local', 'runtime', `node${LAMBDA_NODE_MAJOR}`);

export interface NodeRuntime {
  /** Executable to spawn. */
  readonly path: string;
  /** e.g. 24.21.0 */
  readonly version: string;
  /** Set when the environments do not run Lambda's major. */
  readonly warning?: string;
}

function versionOf(path: string): string | undefined {
  const r = spawnSync(path, ['-e', 'process.stdout.write(process.versions.node)'], {
    encoding: 'utf8',
    timeout: 10_000,
  });
  return r.status === 0 && /^\d+\.\d+\.\d+/.test(r.stdout) ? r.stdout : undefined;
}

/** The pinned package's binary for this platform, if installed. */
function pinnedBinary(): { path: string; version: string } | undefined {
  const pkg = join(RUNTIME_DIR, 'node_modules', `node-${process.platform}-${process.arch}`);
  const bin = join(pkg, 'bin', 'node');
  if (!existsSync(bin)) return undefined;
  const { version } = JSON.parse(readFileSync(join(pkg, 'package.json'), 'utf8')) as { version: string };
  return { path: bin, version };
}

/** `--node PATH` wins; then the pinned Node 24; then this machine's Node, with a warning. */
export function resolveLambdaNode(override?: string): NodeRuntime {
  if (override !== undefined) {
    const version = versionOf(override);
    if (!version) throw new UsageError(`--node ${JSON.stringify(override)} is not a Node executable`);
    const major = Number(version.split('.')[0]);
    return major === LAMBDA_NODE_MAJOR
      ? { path: override, version }
      : {
          path: override,
          version,
          warning: `--node runs Node ${version}; Lambda's ${LAMBDA_RUNTIME} runs Node ${LAMBDA_NODE_MAJOR}`,
        };
  }
  const pinned = pinnedBinary();
  if (pinned) return pinned;
  return {
    path: process.execPath,
    version: process.versions.node,
    warning: `no Node ${LAMBDA_NODE_MAJOR} binary for ${process.platform}-${process.arch} in local/runtime/node${LAMBDA_NODE_MAJOR} (npm ci installs it where the registry has one): environments run this machine's Node ${process.versions.node}, not ${LAMBDA_RUNTIME}'s Node ${LAMBDA_NODE_MAJOR}`,
  };
}
