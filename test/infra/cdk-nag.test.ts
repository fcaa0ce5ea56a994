import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { App, CfnResource, type IPolicyValidationPluginBeta1, Lazy, Stack, Validations } from 'aws-cdk-lib';
import { CapacityProvider } from 'aws-cdk-lib/aws-lambda';
import { CfnBucket } from 'aws-cdk-lib/aws-s3';
import { AwsSolutionsChecks } from 'cdk-nag';
import { describe, expect, it } from 'vitest';
import { PROJECT_ROOT } from '../../core/paths';
import { buildLab } from '../../lib/app';
import { RICH_FLAGS } from '../support/synth';

interface Violation {
  ruleName: string;
  severity: string;
  violatingConstructs: { constructPath: string }[];
}

interface ValidationReport {
  pluginReports: { pluginName: string; conclusion: string; violations: Violation[] }[];
}

/**
 * Every stack of what `build` puts in the app, through the AwsSolutions pack. An error that
 * cdk-nag reports interrupts synth after the report is written, so that one failure is read
 * from the report; any other synth failure is rethrown, never taken for a clean result.
 */
function nagFindings(
  build: (app: App) => void = (app) => buildLab(app),
  flags: Record<string, string> = RICH_FLAGS,
): string[] {
  const outdir = mkdtempSync(join(tmpdir(), 'lab-nag-'));
  try {
    const context = JSON.parse(readFileSync(join(PROJECT_ROOT, 'cdk.json'), 'utf8')).context;
    const app = new App({
      outdir,
      // CDK's own CloudFormation validation is most of a synth's time and not what these cases check.
      builtinCloudFormationValidation: false,
      context: {
        ...context,
        ...flags,
        sourceMaps: 'true',
        'aws:cdk:bundling-stacks': [],
      },
    });
    build(app);
    Validations.of(app).addPlugins(new AwsSolutionsChecks(app));
    let synthError: unknown;
    try {
      app.synth();
    } catch (e) {
      synthError = e;
    }
    const reportFile = join(outdir, 'validation-report.json');
    if (!existsSync(reportFile)) throw synthError ?? new Error('synth wrote no validation report');
    const report = JSON.parse(readFileSync(reportFile, 'utf8')) as ValidationReport;
    const nag = report.pluginReports.filter((p) => p.pluginName === 'AwsSolutions');
    // Synth may only have failed because cdk-nag found errors (they are the findings below);
    // anything else, another validator included, is a broken app and fails the test.
    if (synthError !== undefined && !nag.some((p) => p.conclusion === 'failure')) throw synthError;
    return nag
      .flatMap((p) => p.violations)
      .flatMap((v) => v.violatingConstructs.map((c) => `${v.severity} ${v.ruleName} at ${c.constructPath}`));
  } finally {
    rmSync(outdir, { recursive: true, force: true });
  }
}

describe('cdk-nag AwsSolutions', () => {
  it('has no unacknowledged errors or warnings on any stack', () => {
    expect(nagFindings()).toEqual([]);
  }, 120_000);

  it('has none with compute=managed-instances either (the VPC, the capacity provider and its operator role)', () => {
    // The lab must really be on Managed Instances: flags it ignored would nag nothing new.
    const onInstances = (app: App) => {
      const { api } = buildLab(app);
      if (!api.node.findAll().some((c) => c instanceof CapacityProvider))
        throw new Error('compute=managed-instances made no capacity provider');
    };
    const findings = nagFindings(onInstances, {
      ...RICH_FLAGS,
      provisionedConcurrency: '0',
      compute: 'managed-instances',
      memorySize: '2048',
      managedInstancesTypes: 'm7g.large',
    });
    expect(findings).toEqual([]);
  }, 120_000);

  // The next two build only the stack they need: the lab's own findings are the first case's,
  // and each extra nag run of the whole lab costs seconds of CPU.
  it('a synth that throws fails, rather than passing with no findings', () => {
    const broken = (app: App) => {
      const stack = new Stack(app, 'Broken');
      new CfnResource(stack, 'Thing', {
        type: 'Custom::Thing',
        properties: {
          Value: Lazy.string({
            produce: () => {
              throw new Error('synth failed on purpose');
            },
          }),
        },
      });
    };
    expect(() => nagFindings(broken)).toThrowError('synth failed on purpose');
  }, 120_000);

  it('a synth stopped by another validator fails, though cdk-nag found nothing', () => {
    // Any validator but cdk-nag: one that refuses every stack. (CDK's own CloudFormation
    // validation would do too, but loading its schemas costs seconds of CPU; cdk-synth.test.ts
    // runs it once.)
    const refuseAll: IPolicyValidationPluginBeta1 = {
      name: 'RefuseAll',
      validate: (context) => ({
        success: false,
        violations: [
          {
            ruleName: 'refuse-all',
            description: 'refused on purpose',
            violatingResources: context.templatePaths.map((templatePath) => ({
              resourceLogicalId: 'Thing',
              locations: [],
              templatePath,
            })),
          },
        ],
      }),
    };
    const refused = (app: App) => {
      new CfnResource(new Stack(app, 'Refused'), 'Thing', { type: 'Custom::Thing' });
      Validations.of(app).addPlugins(refuseAll);
    };
    expect(() => nagFindings(refused)).toThrowError(/refuse-all|Validation failed/);
  }, 120_000);

  it('still reads the findings when cdk-nag errors are what stopped synth', () => {
    const open = (app: App) => {
      // A bucket with none of the AwsSolutions defaults: several errors, so synth fails.
      new CfnBucket(new Stack(app, 'Open'), 'Bucket');
    };
    const findings = nagFindings(open);
    expect(findings).toEqual(expect.arrayContaining([expect.stringMatching(/AwsSolutions-S1 at Open\//)]));
    expect(findings.every((f) => f.includes(' at Open/'))).toBe(true);
  }, 120_000);
});
