import { CustomResource, Duration, Lazy, type RemovalPolicy } from 'aws-cdk-lib';
import * as iam from 'aws-cdk-lib/aws-iam';
import type * as lambda from 'aws-cdk-lib/aws-lambda';
import { Construct } from 'constructs';
import { labProvider } from '../../lib/constructs/lab-provider';
import { PerfFunction } from '../../lib/constructs/perf-function';
import { GRANTS_RESOURCE_TYPE, SCHEMA_RESOURCE_TYPE } from './schema-resource';

export interface DsqlSchemaProps {
  /** The cluster's identifier (Ref of AWS::DSQL::Cluster). */
  readonly clusterId: string;
  /** The cluster's ARN: the admin connection is granted on it alone. */
  readonly clusterArn: string;
  /** The database role the functions log in as. */
  readonly role: string;
  /** @default 7 */
  readonly logRetentionDays?: number;
  /** @default RemovalPolicy.DESTROY */
  readonly removalPolicy?: RemovalPolicy;
}

/** Statements on a new cluster can take seconds each; the Provider waits within its own 15 minutes. */
export const DSQL_SCHEMA_TIMEOUT = Duration.seconds(90);

/**
 * The person table, its index and the functions' database role, made by a custom resource
 * that connects as admin (targets/dsql/schema-resource.ts). Its service token also
 * serves DsqlRoleGrants in the API stack, where the functions' IAM roles are.
 */
export class DsqlSchema extends Construct {
  readonly serviceToken: string;
  readonly resource: CustomResource;

  constructor(scope: Construct, id: string, props: DsqlSchemaProps) {
    super(scope, id);
    const onEvent = new PerfFunction(this, 'OnEvent', {
      entry: 'targets/dsql/schema-resource.ts',
      description: 'Creates the lab DSQL schema and role, and maps function roles to it (idempotent)',
      memorySize: 256,
      timeout: DSQL_SCHEMA_TIMEOUT,
      logRetentionDays: props.logRetentionDays,
      removalPolicy: props.removalPolicy,
    });
    // The only principal of the lab that connects as admin; the functions never do.
    onEvent.function.addToRolePolicy(
      new iam.PolicyStatement({ actions: ['dsql:DbConnectAdmin'], resources: [props.clusterArn] }),
    );
    const provider = labProvider(this, onEvent, props);
    this.serviceToken = provider.serviceToken;
    this.resource = new CustomResource(this, 'Resource', {
      serviceToken: provider.serviceToken,
      resourceType: SCHEMA_RESOURCE_TYPE,
      properties: { ClusterId: props.clusterId, Role: props.role },
    });
  }
}

export interface DsqlRoleGrantsProps {
  /** DsqlSchema.serviceToken. */
  readonly serviceToken: string;
  readonly clusterId: string;
  readonly role: string;
}

/**
 * `AWS IAM GRANT <role> TO '<role arn>'` for every function role added, in the stack of those
 * functions (one resource, its list read at synth), revoked when a role leaves the list.
 */
export class DsqlRoleGrants extends Construct {
  readonly #roles: iam.IRole[] = [];

  constructor(scope: Construct, id: string, props: DsqlRoleGrantsProps) {
    super(scope, id);
    new CustomResource(this, 'Resource', {
      serviceToken: props.serviceToken,
      resourceType: GRANTS_RESOURCE_TYPE,
      properties: {
        ClusterId: props.clusterId,
        Role: props.role,
        RoleArns: Lazy.list({ produce: () => this.#roles.map((r) => r.roleArn) }),
      },
    });
  }

  /** Maps the function's IAM role to the database role. */
  add(fn: lambda.IFunction): void {
    if (!fn.role) throw new Error(`${fn.node.path} has no IAM role to map to a DSQL database role`);
    if (!this.#roles.includes(fn.role)) this.#roles.push(fn.role);
  }
}
