/**
 * Lambda Managed Instances: a capacity provider in the lab's VPC, and how a function is put on it.
 * The settings come from AppConfig.managedInstances (lib/config.ts checks them; docs/managed-instances.md
 * cites each limit).
 */
import { Validations } from 'aws-cdk-lib';
import * as ec2 from 'aws-cdk-lib/aws-ec2';
import * as lambda from 'aws-cdk-lib/aws-lambda';
import { Construct } from 'constructs';
import type { ManagedInstancesConfig } from '../config';
import { LabVpc, type LabVpcProps } from './lab-vpc';

export interface ManagedInstancesProps extends LabVpcProps {
  readonly config: ManagedInstancesConfig;
}

export class ManagedInstances extends Construct {
  readonly network: LabVpc;
  readonly capacityProvider: lambda.CapacityProvider;
  private readonly config: ManagedInstancesConfig;

  constructor(scope: Construct, id: string, props: ManagedInstancesProps) {
    super(scope, id);
    this.config = props.config;
    this.network = new LabVpc(this, 'Network', props);
    const types = props.config.instanceTypes;
    this.capacityProvider = new lambda.CapacityProvider(this, 'CapacityProvider', {
      subnets: this.network.vpc.privateSubnets,
      securityGroups: [this.network.securityGroup],
      // The lab's functions are arm64 (constructs/perf-function.ts); the provider's instances must match.
      architectures: [lambda.Architecture.ARM_64],
      instanceTypeFilter:
        types.length > 0
          ? lambda.InstanceTypeFilter.allow(types.map((t) => new ec2.InstanceType(t)))
          : undefined,
      maxVCpuCount: props.config.maxVCpu,
    });
    const operatorRole = this.capacityProvider.node.findChild('OperatorRole');
    Validations.of(operatorRole).acknowledge({
      id: 'AwsSolutions-IAM4[Policy::arn:<AWS::Partition>:iam::aws:policy/AWSLambdaManagedEC2ResourceOperator]',
      reason:
        "The capacity provider's operator role, as CDK makes it: AWS documents this managed policy as the minimum the role needs and keeps it current as the service changes; its statements that create instances, network interfaces and volumes only apply to resources with ec2:ManagedResourceOperator scaler.lambda.amazonaws.com, and its images only to Amazon's own.",
    });
  }

  /** Puts `fn` on the capacity provider with the configured per-environment settings. */
  add(fn: lambda.Function): void {
    // Before addFunction, which adds the note: an acknowledgement holds back only notes added after it.
    Validations.of(fn).acknowledge({
      id: 'Annotation::aws-lambda:Function.CapacityProviderConfiguration',
      reason:
        'Known and designed for: a function on Managed Instances is its own resource (construct id ending OnInstances), so switching compute mode replaces it rather than removing the configuration (docs/managed-instances.md).',
    });
    this.capacityProvider.addFunction(fn, {
      perExecutionEnvironmentMaxConcurrency: this.config.maxConcurrency,
      executionEnvironmentMemoryGiBPerVCpu: this.config.memoryGiBPerVCpu,
      // An unqualified invoke (the API's integration) runs $LATEST.PUBLISHED, kept current by every deploy.
      publishToLatestPublished: true,
    });
  }
}
