/**
 * A phase's own Artillery script: the lab's scenario (loadtest/<operation>-person.yml) with its
 * data between phases named as payload files, written beside the phase's results. Artillery
 * ships a script's payload files (config.payload paths, relative to the script) and its
 * processor with the script to every worker, local or in the cloud; --payload and the
 * environment do not travel (node_modules/artillery/lib/create-bom/create-bom.js), so nothing a
 * phase reads may be outside the script.
 *
 * For cloud workers the script is self-contained: the processor bundled into one file beside it
 * (its npm packages left out) and a package.json naming only those packages, pinned as this
 * project pins them, where Artillery looks for one (the folder all the files share): the workers
 * install what it names, not the whole lab.
 *
 * Payload files:
 *   the GovIds file      one GovId per row: `govId` per virtual user (the scenario's own order) and
 *                        the whole list as `labGovIds` (loadAll) for closed loops and random picks
 *   pick-seed-<n>.csv    one row, `labPickSeed`: reads pick among the GovIds at random with this seed
 */
import { readFileSync } from 'node:fs';
import { basename, dirname, join, relative, resolve, sep } from 'node:path';
import { buildSync } from 'esbuild';
import { parse, stringify } from 'yaml';
import { isRecord } from '../core/timing.mjs';

const PROCESSOR = 'loadtest/lab-processor.mjs';

export interface LabScriptInput {
  /** The lab scenario, e.g. loadtest/get-person.yml (absolute). */
  readonly scenarioFile: string;
  /** The project root (the processor lives under it). */
  readonly root: string;
  /** Where the phase writes its Artillery JSON; the script goes in a scripts/ folder beside it. */
  readonly outJson: string;
  /** A CSV of GovIds, one per row. */
  readonly govIds?: string;
  /** The seed of random picks among govIds. */
  readonly pickSeed?: number;
  /** Cloud workers: the processor bundled beside the script, with a package.json of its packages. */
  readonly selfContained?: boolean;
}

/** What the processor imports from npm: left out of the bundle, installed by the workers. */
const PROCESSOR_PACKAGES = ['@faker-js/faker', '@aws-sdk/credential-provider-node'];

/** The processor as one ESM file, its npm packages external. */
function bundledProcessor(root: string): string {
  const out = buildSync({
    entryPoints: [join(root, PROCESSOR)],
    bundle: true,
    format: 'esm',
    platform: 'node',
    target: 'node20',
    external: PROCESSOR_PACKAGES,
    write: false,
    logLevel: 'silent',
  });
  return `// Bundled by loadtest/lab-script.ts from ${PROCESSOR} for Artillery's cloud workers.\n${out.outputFiles[0].text}`;
}

/** A package.json naming the processor's packages at this project's pinned versions. */
function workerPackageJson(root: string): string {
  const pkg = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as {
    dependencies?: Record<string, string>;
    devDependencies?: Record<string, string>;
  };
  const pinned = { ...pkg.devDependencies, ...pkg.dependencies };
  const dependencies = Object.fromEntries(
    PROCESSOR_PACKAGES.map((name) => {
      const version = pinned[name];
      if (!version) throw new Error(`package.json pins no ${name}, which the processor imports`);
      return [name, version];
    }),
  );
  return `${JSON.stringify({ private: true, description: 'What the lab processor needs on a worker', dependencies }, null, 2)}\n`;
}

export interface LabScript {
  readonly path: string;
  /** Every file to write before the run: the script and the pick seed's CSV. */
  readonly files: readonly { readonly path: string; readonly text: string }[];
}

/** A path as the script names it: relative to the script's folder, with forward slashes. */
function fromScript(scriptDir: string, file: string): string {
  const rel = relative(scriptDir, resolve(file));
  return rel.split(sep).join('/');
}

/** The phase's script and what it needs written; pure but for reading the lab scenario. */
export function labScript(input: LabScriptInput): LabScript {
  const scenario: unknown = parse(readFileSync(input.scenarioFile, 'utf8'));
  if (!isRecord(scenario) || !isRecord(scenario.config))
    throw new Error(`${input.scenarioFile} has no config section`);
  const dir = join(dirname(resolve(input.outJson)), 'scripts');
  const name = basename(input.outJson).replace(/\.json$/, '');
  const path = join(dir, `${name}.yml`);
  const files: { path: string; text: string }[] = [];
  const payload: Record<string, unknown>[] = [];
  if (input.govIds !== undefined) {
    const own = isRecord(scenario.config.payload) ? scenario.config.payload : {};
    const file = fromScript(dir, input.govIds);
    payload.push({
      cast: false,
      skipEmptyLines: true,
      order: 'sequence',
      ...own,
      fields: ['govId'],
      path: file,
    });
    payload.push({
      path: file,
      fields: ['govId'],
      loadAll: true,
      name: 'labGovIds',
      cast: false,
      skipEmptyLines: true,
    });
  }
  if (input.pickSeed !== undefined) {
    if (!Number.isInteger(input.pickSeed) || input.pickSeed < 0)
      throw new Error(`pickSeed must be a whole number >= 0, got ${input.pickSeed}`);
    const seedFile = join(dir, `pick-seed-${input.pickSeed}.csv`);
    files.push({ path: seedFile, text: `${input.pickSeed}\n` });
    payload.push({
      path: fromScript(dir, seedFile),
      fields: ['labPickSeed'],
      order: 'sequence',
      cast: false,
    });
  }
  let processor = join(input.root, PROCESSOR);
  if (input.selfContained) {
    processor = join(dir, 'lab-processor.mjs');
    files.push({ path: processor, text: bundledProcessor(input.root) });
    // Artillery reads package.json from the folder its files share: the results folder with a
    // payload there, else the scripts folder.
    const manifest = workerPackageJson(input.root);
    const shared = input.govIds === undefined ? [dir] : [dir, dirname(resolve(input.govIds))];
    for (const d of new Set(shared)) files.push({ path: join(d, 'package.json'), text: manifest });
  }
  const config: Record<string, unknown> = { ...scenario.config, processor: fromScript(dir, processor) };
  if (payload.length > 0) config.payload = payload;
  else delete config.payload;
  const header = `# Written by loadtest/lab-script.ts from ${fromScript(dir, input.scenarioFile)} for one phase.\n`;
  files.unshift({ path, text: header + stringify({ ...scenario, config }) });
  return { path, files };
}
