/**
 * `npm run tune -- --function NAME ...`: see TUNE_HELP in tune-args.ts. The first Ctrl-C
 * stops the Step Functions execution (or, with --target local, the lab) before exiting 130 (no
 * orphan run); a second one quits at once.
 * Arguments are checked before the runner (and with it the AWS SDK) is loaded: `--help`
 * and a typo answer at once.
 */
import { resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import type { AwsOptions } from '../aws/aws-options';
import { describeCliError } from '../core/errors';
import {
  installInterruptHandler,
  interruptExitCode,
  interruptedBy,
  interruptStopped,
} from '../core/interrupt';
import { loadTargetModules } from '../targets/registry';
import { parseTuneArgs, TUNE_HELP, type TuneOptions } from './tune-args';
import type { OutputStream, TuneClients } from './tune-runner';

export interface TuneCliDeps {
  readonly out: OutputStream;
  readonly err: OutputStream;
  readonly env?: NodeJS.ProcessEnv;
  readonly signal?: AbortSignal;
  /** Builds the clients once the options are valid; tests hand in mocked ones. */
  readonly makeClients?: (aws: AwsOptions) => TuneClients;
  readonly pollMs?: number;
  readonly sleep?: (ms: number, signal?: AbortSignal) => Promise<void>;
  readonly now?: () => number;
}

/** Exit status: 0 done, 1 failed, 2 bad arguments, 130 interrupted. */
export async function runTuneCli(argv: readonly string[], deps: TuneCliDeps): Promise<number> {
  let options: TuneOptions | undefined;
  try {
    // Target modules LAB_TARGET_MODULES names join the registry before a function key is checked.
    await loadTargetModules(deps.env ?? process.env);
    const parsed = parseTuneArgs(argv, { env: deps.env });
    if (parsed.help) {
      deps.out.write(`${TUNE_HELP}\n`);
      return 0;
    }
    if (parsed.local) {
      const local = parsed.local;
      deps.out.write(
        `Tuning ${local.function} on the local lab: ${local.powerValues.join(', ')} MB x ${local.num} invocations, strategy ${local.strategy}\n`,
      );
      const { runLocalTune } = await import('./local-tune');
      const { printResult } = await import('./print-result');
      const { output, file } = await runLocalTune({
        ...local,
        signal: deps.signal,
        log: (line) => deps.out.write(`${line}\n`),
      });
      printResult(deps.out, local.function, local.strategy, output, 'local');
      deps.out.write(`Saved ${file}\n`);
      return 0;
    }
    options = parsed.options;
    const { defaultClients, runTune } = await import('./tune-runner');
    const clients = (deps.makeClients ?? defaultClients)(options.aws);
    try {
      await runTune(options, { ...clients, ...deps });
    } finally {
      // Close the clients' keep-alive sockets so the process ends as soon as the run does.
      for (const c of [clients.cfn, clients.lambda, clients.sfn]) c.destroy();
    }
    return 0;
  } catch (e) {
    const { code, line } = describeCliError(e, { program: 'tune', profile: options?.aws.profile });
    deps.err.write(`${line}\n`);
    return code;
  }
}

// Run only as the entry point: tests import runTuneCli without starting a run.
if (process.argv[1] && import.meta.url === pathToFileURL(resolve(process.argv[1])).href) {
  // The lab CLIs' handler (core/interrupt.ts): the first Ctrl-C stops the execution, or the local
  // lab, before exiting 130; a second one (a second or more later) quits at once.
  const signal = installInterruptHandler({
    stopping: 'the Step Functions execution (or the local lab)',
  });
  const code = await runTuneCli(process.argv.slice(2), {
    out: process.stdout,
    err: process.stderr,
    signal,
  });
  const interrupted = interruptedBy();
  if (interrupted === undefined) process.exitCode = code;
  else {
    await interruptStopped();
    process.exit(interruptExitCode(interrupted));
  }
}
