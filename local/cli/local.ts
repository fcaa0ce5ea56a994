/**
 * `npm run local`: serves the synthesized API on 127.0.0.1 until Ctrl-C, what
 * `sam local start-api` would be, without Docker.
 */
import { parseArgs } from 'node:util';
import { runCli } from '../../core/errors';
import { DEFAULT_MAX_ENVIRONMENTS, DEFAULT_PORT, LOCAL_CALLER, startLab } from '../lab';
import { DEFAULT_RTT_MS } from '../network/network-model';
import { engineOption, intOption, numberOption, UsageError } from './options';

const HELP = `Usage: npm run local -- [options]

  --port N                       port on 127.0.0.1 (default ${DEFAULT_PORT}; 0 = any free port)
  --engine dynalite|dynamodb-local   local DynamoDB engine (default dynalite)
  --data DIR                     keep the engine's data on disk in DIR (default: in memory)
  --rtt MS                       emulated round trip to the database (default ${DEFAULT_RTT_MS})
  --keep-alive on|off|both       variants to serve (default both: /dynamodb/keepalive-on|off/...)
  --provisioned-concurrency N    environments initialized before the first request (default 0)
  --memory MB                    function memory setting reported in REPORT lines (default 512)
  --max-envs N                   most execution environments per function (default ${DEFAULT_MAX_ENVIRONMENTS})
  --quiet                        do not print function logs
`;

runCli(async () => {
  const { values } = parseArgs({
    options: {
      port: { type: 'string' },
      engine: { type: 'string' },
      data: { type: 'string' },
      rtt: { type: 'string' },
      'keep-alive': { type: 'string' },
      'provisioned-concurrency': { type: 'string' },
      memory: { type: 'string' },
      'max-envs': { type: 'string' },
      quiet: { type: 'boolean' },
      help: { type: 'boolean', short: 'h' },
    },
    strict: true,
  });
  if (values.help) {
    process.stdout.write(HELP);
    return 0;
  }
  const keepAlive = values['keep-alive'] ?? 'both';
  if (!['on', 'off', 'both'].includes(keepAlive)) {
    throw new UsageError(`--keep-alive must be on, off or both, got ${JSON.stringify(keepAlive)}`);
  }
  const lab = await startLab({
    port: intOption('port', values.port, 0, 65535, DEFAULT_PORT),
    engine: engineOption(values.engine),
    dataDir: values.data,
    rttMs: numberOption('rtt', values.rtt, 0, 1000, DEFAULT_RTT_MS),
    maxEnvironments: intOption('max-envs', values['max-envs'], 1, 200, DEFAULT_MAX_ENVIRONMENTS),
    context: {
      keepAlive,
      provisionedConcurrency: String(
        intOption('provisioned-concurrency', values['provisioned-concurrency'], 0, 50, 0),
      ),
      memorySize: String(intOption('memory', values.memory, 128, 10240, 512)),
    },
    log: (line) => console.log(line),
    onFunctionLog: values.quiet ? undefined : (fn, line) => console.log(`[${fn}] ${line}`),
  });
  console.log(`\nLab API: ${lab.url}`);
  for (const r of lab.assembly.routes)
    console.log(`  ${r.method.padEnd(5)}${lab.url}${r.path}  -> ${r.function.name}`);
  const { accessKeyId, secretAccessKey, region } = LOCAL_CALLER;
  console.log('\nEvery route requires SigV4 (IAM authorization, as deployed). For example:');
  console.log(
    `  curl --aws-sigv4 "aws:amz:${region}:execute-api" --user ${accessKeyId}:${secretAccessKey} ${lab.url}${lab.assembly.routes.find((r) => r.method === 'GET')?.path.replace('{govId}', 'AB-1') ?? ''}`,
  );
  console.log('\nCtrl-C to stop.');
  await new Promise<void>((resolve) => {
    for (const sig of ['SIGINT', 'SIGTERM'] as const) process.once(sig, () => resolve());
  });
  console.log('Stopping ...');
  await lab.stop();
  return 0;
});
