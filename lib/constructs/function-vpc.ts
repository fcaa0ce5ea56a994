/**
 * Places a built function in a VPC at the CloudFormation level: for a database whose VPC lives in
 * the data stack and reaches the API stack only as subnet and security-group ids (an SSM hand-off,
 * no cross-stack export), where the binding's functionProps hook would need a VPC construct of the
 * API stack's own.
 */
import { Validations } from 'aws-cdk-lib';
import * as iam from 'aws-cdk-lib/aws-iam';
import type * as lambda from 'aws-cdk-lib/aws-lambda';

export interface FunctionVpcIds {
  readonly subnetIds: readonly string[];
  readonly securityGroupIds: readonly string[];
}

/**
 * Sets the function's VpcConfig and grants the network-interface actions Lambda documents for a
 * function in a VPC (AWSLambdaVPCAccessExecutionRole's EC2 statement: the Describe actions take no
 * resource-level permission and the interfaces do not exist before Lambda creates them), without
 * the managed policy's logs rights on every log group.
 */
export function placeFunctionInVpc(fn: lambda.Function, network: FunctionVpcIds): void {
  (fn.node.defaultChild as lambda.CfnFunction).vpcConfig = {
    subnetIds: [...network.subnetIds],
    securityGroupIds: [...network.securityGroupIds],
  };
  fn.addToRolePolicy(
    new iam.PolicyStatement({
      actions: [
        'ec2:CreateNetworkInterface',
        'ec2:DescribeNetworkInterfaces',
        'ec2:DescribeSubnets',
        'ec2:DeleteNetworkInterface',
        'ec2:AssignPrivateIpAddresses',
        'ec2:UnassignPrivateIpAddresses',
      ],
      resources: ['*'],
    }),
  );
  if (!fn.role) throw new Error(`${fn.node.path} has no role to place in the VPC`);
  Validations.of(fn.role).acknowledge({
    id: 'AwsSolutions-IAM5[Resource::*]',
    reason:
      'Lambda creates and deletes the network interfaces of a function in a VPC with these EC2 actions, which AWS documents on all resources (AWSLambdaVPCAccessExecutionRole); no other action has a wildcard.',
  });
}
