/**
 * `npm run docs:experiments`: writes docs/experiments.md from the committed runs'
 * report.json files (docs/results/<experiment>/report.json), in the experiments' order.
 * `--check` writes nothing and exits 1 when the page differs from what the files give.
 * `--from DIR` first copies an experiment run's report.json into docs/results (a run of
 * `npm run experiment -- all` holds one folder per experiment; a single run is one folder).
 */
import { copyFileSync, existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { parseArgs } from 'node:util';
import { runCli, UsageError } from '../core/errors';
import { PROJECT_ROOT } from '../core/paths';
import {
  DOCS_PAGE,
  DOCS_RESULTS_DIR,
  readCommittedRuns,
  renderExperimentDocs,
} from '../experiments/experiment-docs';
import { EXPERIMENTS } from '../experiments/registry';
import type { LabReport } from '../report/report-model';
import { loadTargetModules } from '../targets/registry';

// Every target module joins the registry before the labels and lists are read.
await loadTargetModules();

const USAGE = `Usage: npm run docs:experiments [-- --check] [-- --from DIR]

Writes ${DOCS_PAGE} from ${DOCS_RESULTS_DIR}/<experiment>/report.json.
  --check      write nothing; exit 1 when the page is not what the committed files give
  --from DIR   first copy the report.json of the run(s) in DIR into ${DOCS_RESULTS_DIR}
`;

function copyFrom(dir: string): void {
  const candidates = [dir, ...EXPERIMENTS.map((e) => join(dir, e.name))];
  let copied = 0;
  for (const d of candidates) {
    const file = join(d, 'report.json');
    if (!existsSync(file)) continue;
    const report = JSON.parse(readFileSync(file, 'utf8')) as LabReport;
    const name = report.experiment?.name;
    if (!name) continue;
    const dest = join(PROJECT_ROOT, DOCS_RESULTS_DIR, name);
    mkdirSync(dest, { recursive: true });
    copyFileSync(file, join(dest, 'report.json'));
    console.log(`copied ${relative(process.cwd(), file)} -> ${relative(process.cwd(), dest)}/report.json`);
    copied++;
  }
  if (copied === 0) throw new UsageError(`no experiment report.json in ${dir} or its experiment folders`);
}

runCli(
  async () => {
    const { values } = parseArgs({
      options: {
        check: { type: 'boolean' },
        from: { type: 'string' },
        help: { type: 'boolean', short: 'h' },
      },
    });
    if (values.help) {
      process.stdout.write(USAGE);
      return 0;
    }
    if (values.from && values.check) throw new UsageError('--from writes files; --check writes none');
    if (values.from) copyFrom(values.from);
    const page = renderExperimentDocs(readCommittedRuns());
    const path = join(PROJECT_ROOT, DOCS_PAGE);
    if (values.check) {
      const current = existsSync(path) ? readFileSync(path, 'utf8') : '';
      if (current === page) return 0;
      console.error(`${DOCS_PAGE} is not what ${DOCS_RESULTS_DIR} gives: run npm run docs:experiments`);
      return 1;
    }
    writeFileSync(path, page);
    console.log(`wrote ${DOCS_PAGE} from ${readCommittedRuns().length} committed run(s)`);
    return 0;
  },
  { program: 'docs:experiments' },
);
