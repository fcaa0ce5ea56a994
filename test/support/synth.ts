import { readFileSync } from 'node:fs';
import { App } from 'aws-cdk-lib';
import { Template } from 'aws-cdk-lib/assertions';
import { PROJECT_ROOT } from '../../core/paths';
import { buildLab, type LabStacks } from '../../lib/app';

const CDK_JSON_CONTEXT: Record<string, unknown> = JSON.parse(
  readFileSync(`${PROJECT_ROOT}/cdk.json`, 'utf8'),
).context;

export interface SynthedLab {
  readonly stacks: LabStacks;
  readonly data: Template;
  readonly api: Template;
  readonly powerTuning?: Template;
}

/**
 * Synthesizes the lab as `cdk synth -c ...` would: cdk.json's context first, then the
 * overrides as strings, exactly as the CLI passes them. Bundling is skipped (it is
 * exercised by the real `cdk synth` test), which keeps each synth under a second.
 */
export function synthLab(overrides: Record<string, string> = {}, outdir?: string): SynthedLab {
  if (outdir) return synthesize(overrides, outdir);
  // One synth per set of flags per worker process (files after the first in a shared worker
  // find theirs here too): a synth is deterministic, the tests only read what it built, and
  // about 30 tests share a handful of flag sets.
  const key = JSON.stringify(Object.entries(overrides).sort(([a], [b]) => a.localeCompare(b)));
  let lab = synthesized.get(key);
  if (!lab) {
    lab = synthesize(overrides);
    synthesized.set(key, lab);
  }
  return lab;
}

const synthesized = new Map<string, SynthedLab>();

function synthesize(overrides: Record<string, string>, outdir?: string): SynthedLab {
  const app = new App({
    outdir,
    // CDK's built-in CloudFormation validation is most of a synth's time (about 12 s of 13 here),
    // and it only warns; test/infra/cdk-synth.test.ts runs it, through the real CLI, and asserts
    // it finds nothing.
    builtinCloudFormationValidation: false,
    context: {
      ...CDK_JSON_CONTEXT,
      ...overrides,
      'aws:cdk:bundling-stacks': [],
      // What the CLI sets: templates name their bundle folders, which the local host reads.
      ...(outdir ? { 'aws:cdk:enable-asset-metadata': true } : {}),
    },
  });
  const stacks = buildLab(app);
  if (outdir) app.synth();
  return {
    stacks,
    data: Template.fromStack(stacks.data),
    api: Template.fromStack(stacks.api),
    powerTuning: stacks.powerTuning ? Template.fromStack(stacks.powerTuning) : undefined,
  };
}

/** Masks what changes with handler code (asset hashes, version ids) so snapshots track infrastructure only. */
export function normalizeTemplate(template: Template): unknown {
  const text = JSON.stringify(template.toJSON(), null, 2)
    .replace(/[a-f0-9]{64}/g, '[ASSET_HASH]')
    .replace(/CurrentVersion[A-Fa-f0-9]{8,}/g, 'CurrentVersion[HASH]');
  return JSON.parse(text);
}

/** A complete secret ARN for the redis target in tests (account and suffix are made up). */
export const SAMPLE_REDIS_SECRET_ARN =
  'arn:aws:secretsmanager:us-east-1:123456789012:secret:latency-lab/redis-AbCdEf';

export const RICH_FLAGS = {
  targets: 'dynamodb,qldb,redis,dsql',
  redisSecretArn: SAMPLE_REDIS_SECRET_ARN,
  keepAlive: 'both',
  provisionedConcurrency: '2',
  tracing: 'true',
} as const;
