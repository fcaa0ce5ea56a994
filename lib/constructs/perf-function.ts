import * as path from 'node:path';
import { Duration, RemovalPolicy, Validations } from 'aws-cdk-lib';
import * as iam from 'aws-cdk-lib/aws-iam';
import * as lambda from 'aws-cdk-lib/aws-lambda';
import * as nodejs from 'aws-cdk-lib/aws-lambda-nodejs';
import * as logs from 'aws-cdk-lib/aws-logs';
import { Construct } from 'constructs';
import { PROJECT_ROOT } from '../../core/paths';
import { BUNDLE_ALIAS, ESM_REQUIRE_SHIM } from './bundle-format';

/** Function timeout: above the handlers' 5 s database deadline, so they always answer. */
export const FUNCTION_TIMEOUT = Duration.seconds(10);

export interface PerfFunctionProps {
  /** Path from the project root to the handler file. */
  readonly entry: string;
  /** The entry's export that serves this function. @default 'handler' */
  readonly handler?: string;
  readonly description?: string;
  /** @default 512 */
  readonly memorySize?: number;
  /** X-Ray active tracing. @default false */
  readonly tracing?: boolean;
  /** Source maps in the bundle and enabled at run time; they cost init time. @default false */
  readonly sourceMaps?: boolean;
  /** @default 7 */
  readonly logRetentionDays?: number;
  /** @default RemovalPolicy.DESTROY */
  readonly removalPolicy?: RemovalPolicy;
  readonly environment?: Record<string, string>;
  /** @default FUNCTION_TIMEOUT (10 s, sized for the lab handlers' 5 s database deadline) */
  readonly timeout?: Duration;
  /** The AWS Parameters and Secrets Lambda Extension as a layer. @default - none */
  readonly paramsAndSecrets?: lambda.ParamsAndSecretsLayerVersion;
}

/** NodejsFunction with the lab's defaults: nodejs24.x on arm64, minified ESM with the SDK bundled. */
export class PerfFunction extends Construct {
  readonly function: nodejs.NodejsFunction;
  readonly logGroup: logs.LogGroup;

  constructor(scope: Construct, id: string, props: PerfFunctionProps) {
    super(scope, id);
    this.logGroup = new logs.LogGroup(this, 'Logs', {
      retention: (props.logRetentionDays ?? 7) as logs.RetentionDays,
      removalPolicy: props.removalPolicy ?? RemovalPolicy.DESTROY,
    });
    // An own role instead of AWSLambdaBasicExecutionRole: that managed policy may write to
    // every log group in the account; this one writes to the function's own group only.
    const role = new iam.Role(this, 'Role', {
      assumedBy: new iam.ServicePrincipal('lambda.amazonaws.com'),
      description: `Execution role of ${id}`,
    });
    role.addToPolicy(
      new iam.PolicyStatement({
        actions: ['logs:CreateLogStream', 'logs:PutLogEvents'],
        resources: [this.logGroup.logGroupArn],
      }),
    );
    if (props.tracing) {
      Validations.of(role).acknowledge({
        id: 'AwsSolutions-IAM5[Resource::*]',
        reason:
          'xray:PutTraceSegments and xray:PutTelemetryRecords do not support resource-level permissions.',
      });
    }
    const environment: Record<string, string> = { ...props.environment };
    if (props.sourceMaps) environment.NODE_OPTIONS = '--enable-source-maps';
    this.function = new nodejs.NodejsFunction(this, 'Function', {
      entry: path.join(PROJECT_ROOT, props.entry),
      handler: props.handler ?? 'handler',
      description: props.description,
      runtime: lambda.Runtime.NODEJS_24_X,
      architecture: lambda.Architecture.ARM_64,
      memorySize: props.memorySize ?? 512,
      timeout: props.timeout ?? FUNCTION_TIMEOUT,
      tracing: props.tracing ? lambda.Tracing.ACTIVE : lambda.Tracing.DISABLED,
      logGroup: this.logGroup,
      role,
      environment,
      paramsAndSecrets: props.paramsAndSecrets,
      awsSdkConnectionReuse: false,
      projectRoot: PROJECT_ROOT,
      depsLockFilePath: path.join(PROJECT_ROOT, 'package-lock.json'),
      bundling: {
        format: nodejs.OutputFormat.ESM,
        mainFields: ['module', 'main'],
        minify: true,
        sourceMap: props.sourceMaps ?? false,
        // Bundle and pin the SDK rather than use the runtime's copy: reproducible figures.
        externalModules: [],
        banner: ESM_REQUIRE_SHIM,
        esbuildArgs: Object.fromEntries(
          Object.entries(BUNDLE_ALIAS).map(([from, to]) => [`--alias:${from}`, to]),
        ),
        forceDockerBundling: false,
      },
    });
  }
}
