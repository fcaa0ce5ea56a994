import * as path from 'node:path';
import {
  AssetHashType,
  type BundlingOptions,
  DockerImage,
  Duration,
  type ILocalBundling,
  RemovalPolicy,
  Validations,
} from 'aws-cdk-lib';
import type * as ec2 from 'aws-cdk-lib/aws-ec2';
import * as iam from 'aws-cdk-lib/aws-iam';
import * as lambda from 'aws-cdk-lib/aws-lambda';
import * as logs from 'aws-cdk-lib/aws-logs';
import { Construct } from 'constructs';
import { buildSync } from 'esbuild';
import { PROJECT_ROOT } from '../../core/paths';
import { LAB_ESBUILD_OPTIONS } from './bundle-format';

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
  /** The VPC the function runs in (its target's database is reachable only there). @default - none */
  readonly vpc?: ec2.IVpc;
  /** @default the VPC's private subnets */
  readonly vpcSubnets?: ec2.SubnetSelection;
  /** @default one group CDK makes, all egress */
  readonly securityGroups?: ec2.ISecurityGroup[];
}

/**
 * Builds one entry's bundle with esbuild's API, in the synth's own process. NodejsFunction
 * runs `npx --no-install esbuild` once per bundle: about half a second of CPU for npm's start
 * each (seconds of wall time on a loaded machine). The options are NodejsFunction's with the
 * lab's settings, and the bundles are byte for byte the same. Its fields name the entry and the
 * source maps: the CDK caches a bundle by these options' JSON, so two entries must never
 * serialize alike (and the functions of one entry share its bundle).
 */
class LabBundling implements BundlingOptions {
  // Only asked for if local bundling declines, which it never does (a failed build throws).
  readonly image = DockerImage.fromRegistry('local-bundling-only');
  readonly local: ILocalBundling;

  constructor(
    readonly entry: string,
    readonly sourceMaps: boolean,
  ) {
    this.local = {
      tryBundle: (outputDir) => {
        buildSync({
          ...LAB_ESBUILD_OPTIONS,
          entryPoints: [path.join(PROJECT_ROOT, entry)],
          outfile: path.join(outputDir, 'index.mjs'),
          target: `node${lambda.Runtime.NODEJS_24_X.name.replace(/^nodejs(\d+)\.x$/, '$1')}`,
          absWorkingDir: PROJECT_ROOT,
          sourcemap: sourceMaps,
        });
        return true;
      },
    };
  }
}

/** A Lambda function with the lab's defaults: nodejs24.x on arm64, minified ESM with the SDK bundled. */
export class PerfFunction extends Construct {
  readonly function: lambda.Function;
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
    if (props.vpc) {
      // What Lambda needs to attach the function's network interfaces: AWS's managed policy for
      // it, as CDK adds to a role it makes itself (this role is the lab's own).
      const vpcAccess = 'service-role/AWSLambdaVPCAccessExecutionRole';
      role.addManagedPolicy(iam.ManagedPolicy.fromAwsManagedPolicyName(vpcAccess));
      Validations.of(role).acknowledge({
        id: `AwsSolutions-IAM4[Policy::arn:<AWS::Partition>:iam::aws:policy/${vpcAccess}]`,
        reason:
          'AWS documents this managed policy as the permissions a function needs to create, describe and delete the network interfaces of its VPC; those EC2 actions take no narrower resource.',
      });
    }
    const environment: Record<string, string> = { ...props.environment };
    if (props.sourceMaps) environment.NODE_OPTIONS = '--enable-source-maps';
    this.function = new lambda.Function(this, 'Function', {
      // Asset hash of the bundle, as NodejsFunction's: a change that leaves the bundle alone
      // leaves the function alone. Functions of one entry share one bundle (the CDK caches it by
      // LabBundling's fields).
      code: lambda.Code.fromAsset(PROJECT_ROOT, {
        assetHashType: AssetHashType.OUTPUT,
        bundling: new LabBundling(props.entry, props.sourceMaps ?? false),
      }),
      handler: `index.${props.handler ?? 'handler'}`,
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
      vpc: props.vpc,
      vpcSubnets: props.vpcSubnets,
      securityGroups: props.securityGroups,
    });
  }
}
