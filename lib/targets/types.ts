/**
 * What each database target adds to the stacks: its resources in the data stack, and how a
 * function of the API stack is pointed at them with exactly the permissions its operation needs.
 * Each target's module gives one (targets/<name>/cdk.ts).
 */
import type { RemovalPolicy, Stack } from 'aws-cdk-lib';
import type * as ec2 from 'aws-cdk-lib/aws-ec2';
import type * as lambda from 'aws-cdk-lib/aws-lambda';
import type { Construct } from 'constructs';
import type { LabFunction, Operation } from '../../core/lab-functions';
import type { AppConfig } from '../config';

/** The variable that tells a function's init to open its connection. */
export { PREWARM_ENV } from '../../lambda/shared/prewarm';

export interface DataProps {
  readonly config: AppConfig;
  readonly removalPolicy: RemovalPolicy;
}

/** What a target's functions need set when they are built, not after: a VPC, its groups, an extension. */
export interface TargetFunctionProps {
  /** The VPC the function runs in (a database reachable only there: ElastiCache, Aurora). */
  readonly vpc?: ec2.IVpc;
  /** @default the VPC's private subnets */
  readonly vpcSubnets?: ec2.SubnetSelection;
  /** @default one group CDK makes for the function, all egress */
  readonly securityGroups?: ec2.ISecurityGroup[];
  /** The AWS Parameters and Secrets Lambda Extension, when the function reads a secret through it. */
  readonly paramsAndSecrets?: lambda.ParamsAndSecretsLayerVersion;
}

export interface DatabaseBinding {
  /** Sets the function's environment and grants what `operation` needs, nothing more. */
  bind(fn: lambda.Function, operation: Operation): void;
  /**
   * Props each of the target's functions is built with, asked before it is built (the API stack
   * calls it once per function, with itself as `scope`: what it makes there, it makes once).
   * @default - none
   */
  functionProps?(scope: Construct, spec: LabFunction): TargetFunctionProps;
  /**
   * The gateway endpoints (by construct id) the lab's VPC gives the service the target's
   * functions call, when they run in it: free, and requests skip the NAT gateway.
   * @default - none
   */
  readonly gatewayEndpoints?: Readonly<Record<string, ec2.GatewayVpcEndpointAwsService>>;
}

export interface TargetDefinition {
  /** Creates the target's resources in the data stack (none for a database the user brings). */
  createData(stack: Stack, props: DataProps): DatabaseBinding;
}

/** A definition, or a loader of one: a module's CDK half, loaded only when the stacks are built. */
export type TargetDefinitionSource = TargetDefinition | (() => Promise<TargetDefinition>);
