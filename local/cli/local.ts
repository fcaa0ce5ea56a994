/**
 * `npm run local`: serves the synthesized API on 127.0.0.1 until Ctrl-C, what
 * `sam local start-api` would be, without Docker. Help and bad options load nothing heavy:
 * the lab is imported only once the options are good.
 */
import { parseArgs } from 'node:util';
import { runCli } from '../../core/errors';
import { TARGET_INFO, TARGETS } from '../../core/lab-functions';
import { DEFAULT_IDLE_TIMEOUT_S, DEFAULT_MAX_ENVIRONMENTS, DEFAULT_PORT } from '../lab-defaults';
import { curlSigV4Example } from './curl-example';
import {
  engineOption,
  intOption,
  listOption,
  NETWORK_HELP,
  networkOptions,
  seedOption,
  UsageError,
} from './options';

const HELP = `Usage: npm run local -- [options]

  --targets LIST                 comma list of ${TARGETS.join(', ')} (default dynamodb)
  --port N                       port on 127.0.0.1 (default ${DEFAULT_PORT}; 0 = any free port)
  --engine dynalite|dynamodb-local   local DynamoDB engine (default dynalite)
  --data DIR                     keep the engines' data on disk in DIR (default: in memory)
${NETWORK_HELP}
  --keep-alive on|off|both       variants to serve (default both: /<target>/keepalive-on|off/...)
  --provisioned-concurrency N    environments initialized before the first request (default 0)
  --memory MB                    every function's memory, 128-10240 (default: the template's, 512). Locally
                                 memory is CPU: each environment gets memory/1769 MB of a core and a memory
                                 ceiling (cgroups; the start says if they cannot be used)
  --max-envs N                   most execution environments per function (default ${DEFAULT_MAX_ENVIRONMENTS})
  --idle-timeout S               engines close connections idle this long (default ${DEFAULT_IDLE_TIMEOUT_S})
  --prewarm-connection           each function's init opens its database connection (not Redis)
  --node PATH                    Node executable of the environments (default: Lambda's Node 24, pinned)
  --quiet                        do not print function logs
`;

runCli(
  async () => {
    const { values } = parseArgs({
      options: {
        targets: { type: 'string' },
        port: { type: 'string' },
        engine: { type: 'string' },
        data: { type: 'string' },
        rtt: { type: 'string' },
        profile: { type: 'string' },
        seed: { type: 'string' },
        'keep-alive': { type: 'string' },
        'provisioned-concurrency': { type: 'string' },
        memory: { type: 'string' },
        'max-envs': { type: 'string' },
        node: { type: 'string' },
        'idle-timeout': { type: 'string' },
        'prewarm-connection': { type: 'boolean' },
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
    const targets = listOption('targets', values.targets, TARGETS, ['dynamodb']);
    const options = {
      port: intOption('port', values.port, 0, 65535, DEFAULT_PORT),
      engine: engineOption(values.engine),
      dataDir: values.data,
      ...networkOptions(values.profile, values.rtt),
      seed: seedOption(values.seed),
      maxEnvironments: intOption('max-envs', values['max-envs'], 1, 200, DEFAULT_MAX_ENVIRONMENTS),
      nodePath: values.node,
      idleTimeoutS: intOption('idle-timeout', values['idle-timeout'], 1, 86_400, DEFAULT_IDLE_TIMEOUT_S),
      memoryMb: values.memory === undefined ? undefined : intOption('memory', values.memory, 128, 10240, 512),
      context: {
        targets: targets.join(','),
        keepAlive,
        provisionedConcurrency: String(
          intOption('provisioned-concurrency', values['provisioned-concurrency'], 0, 50, 0),
        ),
        ...(values['prewarm-connection'] ? { prewarmConnection: 'true' } : {}),
      },
    };
    const { startLab } = await import('../lab');
    const lab = await startLab({
      ...options,
      log: (line) => console.log(line),
      onFunctionLog: values.quiet ? undefined : (fn, line) => console.log(`[${fn}] ${line}`),
    });
    console.log(`\nLab API: ${lab.url}  (functions on Node ${lab.node.version})`);
    for (const r of lab.assembly.routes)
      console.log(`  ${r.method.padEnd(5)}${lab.url}${r.path}  -> ${r.function.name}`);
    for (const t of lab.targets.keys()) {
      const notice = (TARGET_INFO[t] as { notice?: string }).notice;
      if (notice) console.log(`\n${notice}`);
    }
    console.log('\nEvery route requires SigV4 (IAM authorization, as deployed). For example:');
    const example = curlSigV4Example(lab.url, lab.assembly.routes);
    if (example) console.log(`  ${example}`);
    console.log('\nCtrl-C to stop.');
    await new Promise<void>((resolve) => {
      for (const sig of ['SIGINT', 'SIGTERM'] as const) process.once(sig, () => resolve());
    });
    console.log('Stopping ...');
    await lab.stop();
    return 0;
  },
  { program: 'local' },
);
