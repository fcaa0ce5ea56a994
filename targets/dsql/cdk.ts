/**
 * Aurora DSQL: a serverless cluster (PostgreSQL wire protocol, IAM auth, no VPC), the schema
 * custom resource that makes the person table, its index and the functions' database role, and
 * per function an IAM GRANT of that role to the function's IAM role. Functions may
 * dsql:DbConnect to this cluster only, as that role; only the custom resource connects as admin.
 */
import { CfnOutput, Stack } from 'aws-cdk-lib';
import * as dsql from 'aws-cdk-lib/aws-dsql';
import * as iam from 'aws-cdk-lib/aws-iam';
import type { Construct } from 'constructs';
import { handOff } from '../../lib/constructs/hand-off';
import { PREWARM_ENV, type TargetDefinition } from '../../lib/targets/types';
import { DsqlRoleGrants, DsqlSchema } from './schema-construct';

/** The database role every lab function logs in as. */
export const DSQL_ROLE = 'lab_app';
const GRANTS_ID = 'DsqlRoleGrants';

export const dsqlTarget: TargetDefinition = {
  createData(stack, { config, removalPolicy }) {
    const cluster = new dsql.CfnCluster(stack, 'DsqlCluster', {
      deletionProtectionEnabled: config.removalPolicy === 'retain',
    });
    cluster.applyRemovalPolicy(removalPolicy);
    // Ref of a DSQL cluster is its identifier.
    const clusterId = cluster.ref;
    const clusterArn = (scope: Construct, id: string) =>
      Stack.of(scope).formatArn({ service: 'dsql', resource: 'cluster', resourceName: id });
    const schema = new DsqlSchema(stack, 'DsqlSchema', {
      clusterId,
      clusterArn: clusterArn(stack, clusterId),
      role: DSQL_ROLE,
      logRetentionDays: config.logRetentionDays,
      removalPolicy,
    });
    new CfnOutput(stack, 'DsqlClusterId', { value: clusterId });
    new CfnOutput(stack, 'DsqlEndpoint', { value: cluster.attrEndpoint });
    // Read by the API stack through SSM parameters, not exports (constructs/hand-off.ts).
    const handedClusterId = handOff(stack, 'dsql/cluster-id', clusterId);
    const handedServiceToken = handOff(stack, 'dsql/schema-service-token', schema.serviceToken);
    return {
      bind(fn) {
        const fnClusterId = handedClusterId(fn);
        fn.addEnvironment('DSQL_CLUSTER_ID', fnClusterId);
        fn.addEnvironment('DSQL_USER', DSQL_ROLE);
        // The init connects and runs SELECT 1: DbConnect, which every operation already has.
        if (config.prewarmConnection) fn.addEnvironment(PREWARM_ENV, 'on');
        // Every operation connects as the role; what it may do in SQL is the role's privileges.
        fn.addToRolePolicy(
          new iam.PolicyStatement({ actions: ['dsql:DbConnect'], resources: [clusterArn(fn, fnClusterId)] }),
        );
        // One grants resource per stack of functions, created with its first function.
        const fnStack = Stack.of(fn);
        const grants =
          (fnStack.node.tryFindChild(GRANTS_ID) as DsqlRoleGrants | undefined) ??
          new DsqlRoleGrants(fnStack, GRANTS_ID, {
            serviceToken: handedServiceToken(fnStack),
            clusterId: fnClusterId,
            role: DSQL_ROLE,
          });
        grants.add(fn);
        // The function, and so its versions and the provisioned-concurrency alias whose
        // environments connect at init (prewarm), comes after its role is mapped: an
        // environment started before the grant fails to log in as lab_app.
        fn.node.addDependency(grants);
      },
    };
  },
};
