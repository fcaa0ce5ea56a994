/**
 * `npm run tune -- --function NAME ...`: see TUNE_HELP in tune-args.ts. The first Ctrl-C
 * stops the Step Functions execution before exiting (no orphan run); a second one quits.
 */
import { runTuneCli } from './tune';

const controller = new AbortController();
process.on('SIGINT', () => {
  if (controller.signal.aborted) process.exit(130);
  process.stderr.write('\nStopping (Ctrl-C again to quit without stopping the execution)...\n');
  controller.abort();
});

process.exitCode = await runTuneCli(process.argv.slice(2), {
  out: process.stdout,
  err: process.stderr,
  signal: controller.signal,
});
