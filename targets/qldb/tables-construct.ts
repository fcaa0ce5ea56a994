import { CustomResource, Duration, type RemovalPolicy, Stack, Validations } from 'aws-cdk-lib';
import * as iam from 'aws-cdk-lib/aws-iam';
import { Construct } from 'constructs';
import { labProvider } from '../../lib/constructs/lab-provider';
import { PerfFunction } from '../../lib/constructs/perf-function';
import type { IndexSpec } from './tables-resource';

export interface QldbTablesProps {
  readonly ledgerName: string;
  readonly tables: readonly string[];
  readonly indexes: readonly IndexSpec[];
  /** @default 7 */
  readonly logRetentionDays?: number;
  /** @default RemovalPolicy.DESTROY */
  readonly removalPolicy?: RemovalPolicy;
}

/**
 * Timeout of the onEvent function. On a ledger CloudFormation has just created, CREATE TABLE,
 * CREATE INDEX (which builds the index) and the reads around them each run in their own
 * transaction with the driver's retries; 10 s, right for a get or a put, leaves them no margin.
 * The Provider framework waits for this function synchronously, within its own 15 minutes.
 */
export const QLDB_TABLES_TIMEOUT = Duration.seconds(90);

/** Creates QLDB tables and indexes through a custom resource; see its handler for the semantics. */
export class QldbTables extends Construct {
  readonly resource: CustomResource;

  constructor(scope: Construct, id: string, props: QldbTablesProps) {
    super(scope, id);
    const onEvent = new PerfFunction(this, 'OnEvent', {
      entry: 'targets/qldb/tables-resource.ts',
      description: 'Creates the lab QLDB tables and indexes (idempotent)',
      memorySize: 256,
      timeout: QLDB_TABLES_TIMEOUT,
      logRetentionDays: props.logRetentionDays,
      removalPolicy: props.removalPolicy,
    });
    const stack = Stack.of(this);
    const ledgerArn = stack.formatArn({
      service: 'qldb',
      resource: 'ledger',
      resourceName: props.ledgerName,
    });
    onEvent.function.addToRolePolicy(
      new iam.PolicyStatement({ actions: ['qldb:SendCommand'], resources: [ledgerArn] }),
    );
    onEvent.function.addToRolePolicy(
      new iam.PolicyStatement({
        // Table ids are only known once the tables exist, so this one function gets the ledger's tables.
        actions: ['qldb:PartiQLCreateTable', 'qldb:PartiQLCreateIndex', 'qldb:PartiQLSelect'],
        resources: [`${ledgerArn}/table/*`, `${ledgerArn}/information_schema/user_tables`],
      }),
    );
    const provider = labProvider(this, onEvent, props);
    Validations.of(onEvent).acknowledge({
      id: 'AwsSolutions-IAM5[Resource::arn:<AWS::Partition>:qldb:<AWS::Region>:<AWS::AccountId>:ledger/<Ledger>/table/*]',
      reason:
        'QLDB table ARNs use table ids that exist only after CREATE TABLE; the grant is limited to this one ledger.',
    });
    this.resource = new CustomResource(this, 'Resource', {
      serviceToken: provider.serviceToken,
      resourceType: 'Custom::QldbTables',
      properties: {
        LedgerName: props.ledgerName,
        Tables: [...props.tables],
        Indexes: props.indexes.map((i) => ({ Table: i.Table, Attribute: i.Attribute })),
      },
    });
  }

  /** The id QLDB gave a table; table ARNs use it, not the name. */
  tableId(table: string): string {
    return this.resource.getAttString(`${table}TableId`);
  }
}
