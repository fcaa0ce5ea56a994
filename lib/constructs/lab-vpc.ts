/**
 * The lab's VPC, made only when something must run in one (today: the Managed Instances of
 * compute=managed-instances). Private subnets in two Availability Zones reach the internet through
 * one NAT gateway: the instances need a route out for Lambda's own communication and the image they
 * start from, and the functions for every public AWS endpoint the targets call (QLDB, DSQL, Secrets
 * Manager, CloudWatch Logs) and the user's own databases. A service a gateway endpoint serves gets
 * one when a target asks (its binding's gatewayEndpoints): free, and its requests skip the NAT
 * gateway's extra hop (and its per-GB charge). Nothing comes in: the security
 * group has no ingress rule, and Lambda routes invocations to the instances itself.
 */
import { RemovalPolicy } from 'aws-cdk-lib';
import * as ec2 from 'aws-cdk-lib/aws-ec2';
import * as logs from 'aws-cdk-lib/aws-logs';
import { Construct } from 'constructs';

export interface LabVpcProps {
  /** Gateway endpoints to add, by construct id (a target's DatabaseBinding.gatewayEndpoints). @default none */
  readonly gatewayEndpoints?: Readonly<Record<string, ec2.GatewayVpcEndpointAwsService>>;
  /** @default 7 */
  readonly logRetentionDays?: number;
  /** @default RemovalPolicy.DESTROY */
  readonly removalPolicy?: RemovalPolicy;
}

export class LabVpc extends Construct {
  readonly vpc: ec2.Vpc;
  /** For the compute in the VPC: all egress, no ingress. */
  readonly securityGroup: ec2.SecurityGroup;

  constructor(scope: Construct, id: string, props: LabVpcProps = {}) {
    super(scope, id);
    this.vpc = new ec2.Vpc(this, 'Vpc', {
      maxAzs: 2,
      // One NAT gateway bounds the lab's standing cost; an AZ that loses it loses egress, which a
      // lab can take.
      natGateways: 1,
      subnetConfiguration: [
        { name: 'Public', subnetType: ec2.SubnetType.PUBLIC, cidrMask: 24 },
        { name: 'Private', subnetType: ec2.SubnetType.PRIVATE_WITH_EGRESS, cidrMask: 20 },
      ],
      // The default group stays unused; restricting it needs a custom resource (another function).
      restrictDefaultSecurityGroup: false,
    });
    // Refused packets only: what a too-tight security group would hide, without logging every request.
    const flowLogs = new logs.LogGroup(this, 'FlowLogs', {
      retention: (props.logRetentionDays ?? 7) as logs.RetentionDays,
      removalPolicy: props.removalPolicy ?? RemovalPolicy.DESTROY,
    });
    this.vpc.addFlowLog('FlowLog', {
      destination: ec2.FlowLogDestination.toCloudWatchLogs(flowLogs),
      trafficType: ec2.FlowLogTrafficType.REJECT,
    });
    for (const [id, service] of Object.entries(props.gatewayEndpoints ?? {}))
      this.vpc.addGatewayEndpoint(id, { service });
    this.securityGroup = new ec2.SecurityGroup(this, 'Compute', {
      vpc: this.vpc,
      description: 'Latency lab compute: egress only',
      allowAllOutbound: true,
    });
  }
}
