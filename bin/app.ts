#!/usr/bin/env node
import { App } from 'aws-cdk-lib';
import { buildLab } from '../lib/app';
import { ConfigError } from '../lib/config';
import { loadTargetDefinitions } from '../lib/targets';
import { loadTargetModules } from '../targets/registry';

// Every target module (the project's list, and those LAB_TARGET_MODULES names: the lab passes
// its own to this synth) joins the registry; then their CDK halves load.
await loadTargetModules();
await loadTargetDefinitions();

const app = new App();
try {
  buildLab(app, {
    // Region and account come from the CLI profile; unset, the templates stay environment-agnostic.
    env: { account: process.env.CDK_DEFAULT_ACCOUNT, region: process.env.CDK_DEFAULT_REGION },
  });
} catch (e) {
  if (e instanceof ConfigError) {
    console.error(e.message);
    process.exit(1);
  }
  throw e;
}
