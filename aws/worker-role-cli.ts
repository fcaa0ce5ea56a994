/**
 * `npm run worker-role -- --platform aws:lambda|aws:fargate [--region R] [--profile P] [--stack-prefix S]`:
 * deploys the opt-in stack <prefix>-ArtilleryWorkers (aws/artillery-worker-role.ts) that lets
 * Artillery's cloud workers call the deployed lab's API, and prints the load command that uses it.
 */
import { parseArgs } from 'node:util';
import { runCli, UsageError } from '../core/errors';
import { AWS_OPTION_SPECS, AWS_OPTIONS_HELP } from './aws-options';

const HELP = `Usage: npm run worker-role -- --platform aws:lambda|aws:fargate [AWS options]

Deploys <stack-prefix>-ArtilleryWorkers: execute-api:Invoke on the lab's API for Artillery's
workers (aws:lambda: a worker role to pass with --worker-role; aws:fargate: a policy on the task
role Artillery creates on its first Fargate run, so run one first). The stack's region is the
API's; IAM is global, so workers in any region use it.

${AWS_OPTIONS_HELP}
`;

runCli(async () => {
  const { values } = parseArgs({
    options: { platform: { type: 'string' }, help: { type: 'boolean', short: 'h' }, ...AWS_OPTION_SPECS },
    strict: true,
  });
  if (values.help) {
    process.stdout.write(HELP);
    return 0;
  }
  const platform = values.platform;
  if (platform !== 'aws:lambda' && platform !== 'aws:fargate')
    throw new UsageError(`--platform must be aws:lambda or aws:fargate, got ${JSON.stringify(platform)}`);
  const [
    { CloudFormationClient },
    { resolveAwsOptions, sdkClientConfig },
    { readLabOutputs },
    { deployWorkerRole },
  ] = await Promise.all([
    import('@aws-sdk/client-cloudformation'),
    import('./aws-options'),
    import('./stack-outputs'),
    import('./artillery-worker-role'),
  ]);
  const aws = resolveAwsOptions(values);
  const cfn = new CloudFormationClient(sdkClientConfig(aws));
  try {
    const outputs = await readLabOutputs(cfn, aws.stackPrefix);
    const deployed = await deployWorkerRole({
      cfn,
      platform,
      stackPrefix: aws.stackPrefix,
      apiUrl: outputs.apiUrl,
    });
    console.log(`Stack ${deployed.stackName} is ready. Load from many machines with:`);
    console.log(
      `  npm run load -- --target aws --platform ${platform} --count N --worker-role ${deployed.workerRole}${aws.profile ? ` --profile ${aws.profile}` : ''}`,
    );
    return 0;
  } finally {
    cfn.destroy();
  }
});
