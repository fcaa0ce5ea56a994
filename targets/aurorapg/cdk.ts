/**
 * Aurora Serverless v2 PostgreSQL in the lab's VPC (lib/constructs/lab-vpc.ts): one serverless v2
 * writer, IAM database authentication, TLS required (rds.force_ssl), storage encrypted, the
 * master password in a generated secret that only the schema custom resource reads. Two modes
 * (settings.ts): `direct`, functions connect to the writer (minimum 0 ACUs by default: it pauses
 * after SecondsUntilAutoPause and resumes on the next connection); `proxy`, through RDS Proxy
 * with end-to-end IAM authentication (the proxy logs in to the cluster as the same user with
 * IAM, so no user secret exists).
 *
 * Least privilege: each function may `rds-db:connect` as the one database user lab_app, on this
 * cluster (direct) or this proxy (proxy), nothing else of RDS. Network: the functions, the
 * custom resource and the proxy each have a security group; the database's admits PostgreSQL
 * from them only, the functions' may reach only the database (or the proxy).
 */
import { ArnFormat, CfnOutput, CustomResource, Duration, Fn, Stack, Validations } from 'aws-cdk-lib';
import * as ec2 from 'aws-cdk-lib/aws-ec2';
import * as iam from 'aws-cdk-lib/aws-iam';
import type * as lambda from 'aws-cdk-lib/aws-lambda';
import * as rds from 'aws-cdk-lib/aws-rds';
import { Construct } from 'constructs';
import { placeFunctionInVpc } from '../../lib/constructs/function-vpc';
import { handOff } from '../../lib/constructs/hand-off';
import { labProvider } from '../../lib/constructs/lab-provider';
import { LabVpc } from '../../lib/constructs/lab-vpc';
import { PerfFunction } from '../../lib/constructs/perf-function';
import { PREWARM_ENV, type TargetDefinition } from '../../lib/targets/types';
import { SCHEMA_RESOURCE_TYPE } from './schema';
import { DEADLINE_MS, MASTER_USER, parseAuroraSettings } from './settings';

/** The database user every lab function logs in as, with an IAM token. */
export const APP_USER = 'lab_app';
const PORT = 5432;
/**
 * Above the store's whole-call deadline (a resume fits), under API Gateway's 29 s integration
 * timeout: the lab's other functions keep FUNCTION_TIMEOUT.
 */
export const AURORA_FUNCTION_TIMEOUT_S = Math.ceil(DEADLINE_MS / 1000) + 3;
/**
 * The RDS certificate authorities the Node.js runtime ships, not loaded by default from Node 20 on:
 * https://docs.aws.amazon.com/lambda/latest/dg/lambda-nodejs.html (Establishing database connections)
 */
export const RDS_CA_BUNDLE = '/var/runtime/ca-cert.pem';

const dbUserArn = (scope: Construct, resourceId: string) =>
  Stack.of(scope).formatArn({
    service: 'rds-db',
    resource: 'dbuser',
    resourceName: `${resourceId}/${APP_USER}`,
    arnFormat: ArnFormat.COLON_RESOURCE_NAME,
  });

export const auroraTarget: TargetDefinition = {
  createData(stack, { config, removalPolicy }) {
    const settings = parseAuroraSettings(config.context);
    const network = new LabVpc(stack, 'AuroraPgNetwork', {
      logRetentionDays: config.logRetentionDays,
      removalPolicy,
    });
    const { vpc } = network;
    const subnets = { subnetType: ec2.SubnetType.PRIVATE_WITH_EGRESS };
    const sg = (id: string, description: string, allowAllOutbound: boolean) =>
      new ec2.SecurityGroup(stack, id, { vpc, description, allowAllOutbound });
    const dbSg = sg('AuroraPgDatabase', 'Latency lab Aurora PostgreSQL: PostgreSQL from the lab only', false);
    const fnSg = sg('AuroraPgFunctions', 'Latency lab functions of aurorapg: to the database only', false);
    // Reads the secret from Secrets Manager's public endpoint: HTTPS out, through the NAT gateway.
    const schemaSg = sg(
      'AuroraPgSchemaSg',
      'Latency lab aurorapg schema resource: HTTPS out and the database',
      false,
    );
    schemaSg.addEgressRule(ec2.Peer.anyIpv4(), ec2.Port.tcp(443), 'Secrets Manager');
    schemaSg.connections.allowTo(dbSg, ec2.Port.tcp(PORT), 'schema resource to the database');

    const engine = rds.DatabaseClusterEngine.auroraPostgres({
      version: rds.AuroraPostgresEngineVersion.VER_16_6,
    });
    const cluster = new rds.DatabaseCluster(stack, 'AuroraPg', {
      engine,
      writer: rds.ClusterInstance.serverlessV2('Writer', { publiclyAccessible: false }),
      serverlessV2MinCapacity: settings.minAcu,
      serverlessV2MaxCapacity: settings.maxAcu,
      ...(settings.autoPauseS === undefined
        ? {}
        : { serverlessV2AutoPauseDuration: Duration.seconds(settings.autoPauseS) }),
      vpc,
      vpcSubnets: subnets,
      securityGroups: [dbSg],
      credentials: rds.Credentials.fromGeneratedSecret(MASTER_USER),
      iamAuthentication: true,
      storageEncrypted: true,
      parameterGroup: new rds.ParameterGroup(stack, 'AuroraPgParameters', {
        engine,
        description: 'Latency lab Aurora PostgreSQL: TLS required',
        parameters: { 'rds.force_ssl': '1' },
      }),
      port: PORT,
      backup: { retention: Duration.days(1) },
      deletionProtection: config.removalPolicy === 'retain',
      removalPolicy,
    });
    const secret = cluster.secret;
    if (!secret) throw new Error('aurorapg: the cluster has no generated secret');

    let host: string;
    let resourceId: string;
    let target: ec2.IConnectable = cluster;
    if (settings.mode === 'proxy') {
      const proxySg = sg('AuroraPgProxySg', 'Latency lab RDS Proxy of aurorapg', false);
      proxySg.connections.allowTo(dbSg, ec2.Port.tcp(PORT), 'proxy to the database');
      const proxyRole = new iam.Role(stack, 'AuroraPgProxyRole', {
        assumedBy: new iam.ServicePrincipal('rds.amazonaws.com'),
        description: 'RDS Proxy of aurorapg: logs in to the cluster as lab_app with IAM',
      });
      proxyRole.addToPolicy(
        new iam.PolicyStatement({
          actions: ['rds-db:connect'],
          resources: [dbUserArn(stack, cluster.clusterResourceIdentifier)],
        }),
      );
      const proxy = cluster.addProxy('AuroraPgProxy', {
        vpc,
        vpcSubnets: subnets,
        securityGroups: [proxySg],
        role: proxyRole,
        iamAuth: true,
        requireTLS: true,
        defaultAuthScheme: rds.DefaultAuthScheme.IAM_AUTH,
      });
      host = proxy.endpoint;
      // The proxy's resource id (prx-...) is the last field of its ARN.
      resourceId = Fn.select(6, Fn.split(':', proxy.dbProxyArn));
      target = proxySg;
      new CfnOutput(stack, 'AuroraPgProxyEndpoint', { value: proxy.endpoint });
    } else {
      host = cluster.clusterEndpoint.hostname;
      resourceId = cluster.clusterResourceIdentifier;
    }
    fnSg.connections.allowTo(target, ec2.Port.tcp(PORT), 'functions to the database');

    const onEvent = new PerfFunction(stack, 'AuroraPgSchemaOnEvent', {
      entry: 'targets/aurorapg/schema.ts',
      description: 'Creates the lab Aurora PostgreSQL schema and the functions’ IAM user (idempotent)',
      memorySize: 256,
      timeout: Duration.seconds(90),
      logRetentionDays: config.logRetentionDays,
      removalPolicy,
      environment: { NODE_EXTRA_CA_CERTS: RDS_CA_BUNDLE },
    });
    secret.grantRead(onEvent.function);
    placeFunctionInVpc(onEvent.function, {
      subnetIds: vpc.selectSubnets(subnets).subnetIds,
      securityGroupIds: [schemaSg.securityGroupId],
    });
    const provider = labProvider(new Construct(stack, 'AuroraPgSchemaProvider'), onEvent, {
      logRetentionDays: config.logRetentionDays,
      removalPolicy,
    });
    const schema = new CustomResource(stack, 'AuroraPgSchema', {
      serviceToken: provider.serviceToken,
      resourceType: SCHEMA_RESOURCE_TYPE,
      properties: { SecretArn: secret.secretArn, User: APP_USER },
    });
    schema.node.addDependency(cluster);

    new CfnOutput(stack, 'AuroraPgEndpoint', { value: cluster.clusterEndpoint.hostname });
    new CfnOutput(stack, 'AuroraPgMode', { value: settings.mode });
    const handedHost = handOff(stack, 'aurorapg/host', host);
    const handedResourceId = handOff(stack, 'aurorapg/resource-id', resourceId);
    const handedSubnets = handOff(
      stack,
      'aurorapg/subnet-ids',
      Fn.join(',', vpc.selectSubnets(subnets).subnetIds),
    );
    const handedSg = handOff(stack, 'aurorapg/function-security-group', fnSg.securityGroupId);
    acknowledgeClusterFindings(cluster);

    return {
      bind(fn) {
        fn.addEnvironment('AURORA_PG_HOST', handedHost(fn));
        fn.addEnvironment('AURORA_PG_USER', APP_USER);
        fn.addEnvironment('NODE_EXTRA_CA_CERTS', RDS_CA_BUNDLE);
        if (config.prewarmConnection) fn.addEnvironment(PREWARM_ENV, 'on');
        fn.addToRolePolicy(
          new iam.PolicyStatement({
            actions: ['rds-db:connect'],
            resources: [dbUserArn(fn, handedResourceId(fn))],
          }),
        );
        placeFunctionInVpc(fn, {
          subnetIds: Fn.split(',', handedSubnets(fn), 2),
          securityGroupIds: [handedSg(fn)],
        });
        (fn.node.defaultChild as lambda.CfnFunction).timeout = AURORA_FUNCTION_TIMEOUT_S;
        // The functions connect as lab_app, which the schema resource makes.
        fn.node.addDependency(schema);
      },
    };
  },
};

/** cdk-nag AwsSolutions findings on the cluster that are decisions, each with its reason. */
function acknowledgeClusterFindings(cluster: rds.DatabaseCluster): void {
  Validations.of(cluster).acknowledge(
    {
      id: 'AwsSolutions-RDS10',
      reason:
        'A lab cluster: deletion protection follows the removalPolicy flag (on with retain), so cdk destroy removes a destroy-policy lab.',
    },
    {
      id: 'AwsSolutions-RDS11',
      reason:
        'PostgreSQL’s default port: the security group admits only the lab’s own groups, and every login needs TLS and an IAM token.',
    },
    {
      id: 'AwsSolutions-SMG4',
      reason:
        'The master password is read once, by the schema custom resource; the functions never use it (IAM tokens). Rotation would add a function in the VPC for a secret nothing reads afterwards.',
    },
  );
}
