import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { App, Validations } from 'aws-cdk-lib';
import { AwsSolutionsChecks } from 'cdk-nag';
import { afterAll, describe, expect, it } from 'vitest';
import { buildLab } from '../../lib/app';
import { PROJECT_ROOT } from '../../lib/constructs/perf-function';
import { RICH_FLAGS } from '../support/synth';

interface Violation {
  ruleName: string;
  severity: string;
  violatingConstructs: { constructPath: string }[];
}

/** Every stack, with the richest flags, through the AwsSolutions pack. */
function nagFindings(): string[] {
  const outdir = mkdtempSync(join(tmpdir(), 'lab-nag-'));
  try {
    const context = JSON.parse(readFileSync(join(PROJECT_ROOT, 'cdk.json'), 'utf8')).context;
    const app = new App({
      outdir,
      context: { ...context, ...RICH_FLAGS, sourceMaps: 'true', 'aws:cdk:bundling-stacks': [] },
    });
    buildLab(app);
    Validations.of(app).addPlugins(new AwsSolutionsChecks(app));
    try {
      app.synth();
    } catch {
      // A failed validation interrupts synth; the report below says why.
    }
    const report = JSON.parse(readFileSync(join(outdir, 'validation-report.json'), 'utf8')) as {
      pluginReports: { pluginName: string; violations: Violation[] }[];
    };
    return report.pluginReports
      .filter((p) => p.pluginName === 'AwsSolutions')
      .flatMap((p) => p.violations)
      .flatMap((v) => v.violatingConstructs.map((c) => `${v.severity} ${v.ruleName} at ${c.constructPath}`));
  } finally {
    rmSync(outdir, { recursive: true, force: true });
  }
}

describe('cdk-nag AwsSolutions', () => {
  const findings = nagFindings();
  afterAll(() => {});

  it('has no unacknowledged errors or warnings on any stack', () => {
    expect(findings).toEqual([]);
  });
});
