/**
 * `npm run local`: serves the synthesized API on 127.0.0.1 until Ctrl-C, what
 * `sam local start-api` would be, without Docker. Help and bad options load nothing heavy:
 * the lab is imported only once the options are good.
 */
import { mkdirSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { runCli } from '../../core/errors';
import { installInterruptHandler } from '../../core/interrupt';
import { prewarmNote, TARGETS, targetNotice } from '../../core/lab-functions';
import { LineFile } from '../../core/line-file';
import {
  DEFAULT_IDLE_TIMEOUT_S,
  DEFAULT_MAX_ENVIRONMENTS,
  DEFAULT_PORT,
  LOCAL_CALLER,
} from '../lab-defaults';
import { LAB_ENV_FILE, parseEnvFile, readEnvFile, removeEnvFile, writeEnvFile } from '../lab-env';
import { tlsLabels } from '../network/tls-versions';
import { type LabCommand, localTarget } from '../targets';
import {
  COMPUTE_ARGS,
  COMPUTE_HELP,
  coldStartOption,
  computeOptions,
  engineHelp,
  engineOption,
  intOption,
  listOption,
  NETWORK_HELP,
  networkOptions,
  seedOption,
  UsageError,
} from './options';
import { nodeEndOfLifeNotice, routeLines, startScreen } from './start-screen';

// The target modules register in a preload (package.json: --import ./targets/load-env.ts), as
// local/ cannot import the registry above it; started without one, say so rather than list none.
if (TARGETS.length === 0) {
  console.error(
    'local: no target registered: start it with npm run local (its --import ./targets/load-env.ts registers them)',
  );
  process.exit(2);
}

const HELP = `Usage: npm run local -- [options]
       npm run -s local -- env      the running lab's environment lines, for: eval "$(npm run -s local -- env)"
${[...targetCommands()].map(([name, c]) => `       npm run -s local -- ${name.padEnd(8)} ${c.help}\n`).join('')}
  --targets LIST                 comma list of ${TARGETS.join(', ')} (default: every target whose
                                 engine is here; one line names each one skipped and the command that
                                 adds it). A target named here whose engine is missing: exit 2
  --port N                       port on 127.0.0.1 (default ${DEFAULT_PORT}; 0 = any free port)
${engineHelp(33)}
  --data DIR                     keep the engines' data on disk in DIR after the lab stops
                                 (default: memory-backed files, kept across an engine restart)
${NETWORK_HELP}
  --keep-alive on|off|both       variants to serve (default both: /<target>/keepalive-on|off/...)
  --provisioned-concurrency N    environments initialized before the first request (default 0)
  --memory MB                    every function's memory, 128-10240 (default: the template's, 512). Locally
                                 memory is CPU: each environment gets memory/1769 MB of a core and a memory
                                 ceiling (cgroups; the start says if they cannot be used)
${COMPUTE_HELP}
  --max-envs N                   most execution environments per function (default ${DEFAULT_MAX_ENVIRONMENTS})
  --idle-timeout S               engines close connections idle this long (default ${DEFAULT_IDLE_TIMEOUT_S})
  --reclaim-idle S               end an execution environment idle this long, as Lambda reclaims idle
                                 ones (default: never)
  --prewarm-connection           each function's init opens its database connection${prewarmNote()}
  --node PATH                    Node executable of the environments (default: Lambda's Node 24, pinned)
  --quiet                        do not print function logs
  --routes                       print every route at start (default: one line per target)
  --lab-env PATH                 where the lab writes its environment file (default .lab/local.env,
                                 mode 0600, removed when the lab stops)
`;

/** The targets' subcommands (LocalTarget.commands), by name: the first target to name one has it. */
function targetCommands(): Map<string, LabCommand> {
  const out = new Map<string, LabCommand>();
  for (const t of TARGETS)
    for (const [name, command] of Object.entries(localTarget(t).commands ?? {}))
      if (name !== 'env' && !out.has(name)) out.set(name, command);
  return out;
}

runCli(
  async () => {
    const { values, positionals } = parseArgs({
      allowPositionals: true,
      options: {
        targets: { type: 'string' },
        port: { type: 'string' },
        engine: { type: 'string' },
        data: { type: 'string' },
        rtt: { type: 'string' },
        profile: { type: 'string' },
        seed: { type: 'string' },
        'cold-start': { type: 'string' },
        ...COMPUTE_ARGS,
        'keep-alive': { type: 'string' },
        'provisioned-concurrency': { type: 'string' },
        memory: { type: 'string' },
        'max-envs': { type: 'string' },
        node: { type: 'string' },
        'idle-timeout': { type: 'string' },
        'reclaim-idle': { type: 'string' },
        'prewarm-connection': { type: 'boolean' },
        quiet: { type: 'boolean' },
        'lab-env': { type: 'string' },
        routes: { type: 'boolean' },
        help: { type: 'boolean', short: 'h' },
      },
      strict: true,
    });
    if (values.help) {
      process.stdout.write(HELP);
      return 0;
    }
    const envFile = resolve(values['lab-env'] ?? LAB_ENV_FILE);
    const [command, ...extra] = positionals;
    const commands = targetCommands();
    if (extra.length > 0 || (command !== undefined && command !== 'env' && !commands.has(command))) {
      throw new UsageError(
        `unknown command ${JSON.stringify(positionals.join(' '))}; commands: ${['env', ...commands.keys()].join(', ')}`,
      );
    }
    if (command === 'env') {
      const text = readEnvFile(envFile);
      if (text instanceof Error) throw text;
      process.stdout.write(text);
      return 0;
    }
    const targetCommand = command === undefined ? undefined : commands.get(command);
    if (targetCommand) {
      const text = readEnvFile(envFile);
      if (text instanceof Error) throw text;
      process.stdout.write(`${await targetCommand.run(parseEnvFile(text))}\n`);
      return 0;
    }
    const keepAlive = values['keep-alive'] ?? 'both';
    if (!['on', 'off', 'both'].includes(keepAlive)) {
      throw new UsageError(`--keep-alive must be on, off or both, got ${JSON.stringify(keepAlive)}`);
    }
    const requested =
      values.targets === undefined ? undefined : listOption('targets', values.targets, TARGETS, []);
    const { context: computeContext, ...compute } = computeOptions(values);
    const options = {
      port: intOption('port', values.port, 0, 65535, DEFAULT_PORT),
      engine: engineOption(values.engine),
      dataDir: values.data,
      ...networkOptions(values.profile, values.rtt),
      seed: seedOption(values.seed),
      ...coldStartOption(values['cold-start']),
      ...compute,
      maxEnvironments: intOption('max-envs', values['max-envs'], 1, 200, DEFAULT_MAX_ENVIRONMENTS),
      nodePath: values.node,
      idleTimeoutS: intOption('idle-timeout', values['idle-timeout'], 1, 86_400, DEFAULT_IDLE_TIMEOUT_S),
      reclaimIdleS:
        values['reclaim-idle'] === undefined
          ? undefined
          : intOption('reclaim-idle', values['reclaim-idle'], 1, 86_400, 1),
      memoryMb: values.memory === undefined ? undefined : intOption('memory', values.memory, 128, 10240, 512),
      context: {
        ...computeContext,
        keepAlive,
        provisionedConcurrency: String(
          intOption('provisioned-concurrency', values['provisioned-concurrency'], 0, 50, 0),
        ),
        ...(values['prewarm-connection'] ? { prewarmConnection: 'true' } : {}),
      },
    };
    // After every option is checked (a bad one loads nothing heavy), before anything starts:
    // a named target's missing engine is a usage error (exit 2).
    const { chooseTargets, skippedLines } = await import('../targets/choose-targets');
    const chosen = await chooseTargets({ requested, log: (line) => console.log(line) });
    const targets = chosen.targets;
    for (const line of skippedLines(chosen)) console.log(line);
    // The SDK's own multi-line Node warning is replaced by the lab's one line (children inherit this).
    process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED = 'true';
    const eol = nodeEndOfLifeNotice(process.version);
    if (eol) console.log(eol);
    // Engine logs, network-model events and start-up progress: the file, not the screen.
    const logFile = join(dirname(envFile), 'local.log');
    mkdirSync(dirname(logFile), { recursive: true });
    const logStream = new LineFile(logFile, { flags: 'w', mode: 0o600 });
    const tail: string[] = [];
    const toFile = (line: string) => {
      logStream.write(line);
      tail.push(line);
      if (tail.length > 15) tail.shift();
    };
    let screenReady = false;
    console.log(`Starting the lab; engine logs and network-model events: ${logFile}`);
    // Ctrl-C, SIGTERM or SIGHUP stop the lab (the handler calls its stop) and exit with the
    // signal's code (core/interrupt.ts); a second Ctrl-C quits at once, ending its processes.
    const signal = installInterruptHandler();
    const { startLab, memoryModelLine } = await import('../lab');
    let lab: Awaited<ReturnType<typeof startLab>>;
    try {
      lab = await startLab({
        ...options,
        context: { ...options.context, targets: targets.join(',') },
        restartDeadEngines: true,
        log: (line) => {
          toFile(line);
          if (line.startsWith('warning:')) console.log(line);
        },
        onFunctionLog: (fn, line) => {
          if (screenReady && !values.quiet) console.log(`[${fn}] ${line}`);
          else toFile(`[${fn}] ${line}`);
        },
      });
    } catch (e) {
      console.log(`The lab did not start. The log's last lines (${logFile}):`);
      for (const line of tail) console.log(`  ${line}`);
      logStream.close();
      throw e;
    }
    console.log(memoryModelLine(lab.memoryModel));
    const negotiated = tlsLabels([...lab.targets.values()].flatMap((r) => r.tlsVersions));
    console.log(
      `Network model: profile ${lab.profile.name}, ${negotiated} (negotiated at start) in front of every engine (each target's link: the log)`,
    );
    writeEnvFile(envFile, lab.clientEnv());
    // Also on an exit that skips the stop below (an uncaught error): the file names a live lab only.
    process.once('exit', () => removeEnvFile(envFile));
    const env = lab.clientEnv();
    const defaultEnvFile = envFile === resolve(LAB_ENV_FILE);
    const labEnvFlag = defaultEnvFile ? '' : ` --lab-env ${envFile}`;
    const routes = lab.assembly.routes.map((r) => ({
      method: r.method,
      path: r.path,
      functionName: r.function.name,
    }));
    const screen = startScreen({
      targets: [...lab.targets].map(([target, r]) => ({
        target,
        engine: r.database.description.replace(/ \([^)]*\)/g, ''),
        modelUrl: r.model.url,
        env: r.database.clientEnv(r.model),
        tables: r.database.tables,
      })),
      apiUrl: lab.url,
      routes,
      caCertPath: lab.caCertPath,
      envFile,
      envCommand: `npm run -s local -- env${labEnvFlag}`,
      labCommand: (name) => `npm run -s local -- ${name}${labEnvFlag}`,
      region: env.AWS_REGION ?? LOCAL_CALLER.region,
    });
    for (const line of screen) console.log(line);
    for (const r of lab.targets.values()) if (r.database.notice) console.log(r.database.notice);
    if (values.routes) for (const line of routeLines(lab.url, routes)) console.log(line);
    for (const t of lab.targets.keys()) {
      const notice = targetNotice(t);
      if (notice) console.log(notice);
    }
    console.log('\nCtrl-C to stop.');
    screenReady = true;
    await new Promise<void>((resolve) => {
      if (signal.aborted) resolve();
      else signal.addEventListener('abort', () => resolve(), { once: true });
    });
    removeEnvFile(envFile);
    await lab.stop();
    logStream.close();
    return 0;
  },
  { program: 'local' },
);
