import { CustomResource, RemovalPolicy, Stack } from 'aws-cdk-lib';
import * as iam from 'aws-cdk-lib/aws-iam';
import * as logs from 'aws-cdk-lib/aws-logs';
import * as cr from 'aws-cdk-lib/custom-resources';
import { Construct } from 'constructs';
import type { IndexSpec } from '../../lambda/custom-resources/qldb-tables';
import { PerfFunction } from './perf-function';

export interface QldbTablesProps {
  readonly ledgerName: string;
  readonly tables: readonly string[];
  readonly indexes: readonly IndexSpec[];
  /** @default 7 */
  readonly logRetentionDays?: number;
  /** @default RemovalPolicy.DESTROY */
  readonly removalPolicy?: RemovalPolicy;
}

/** Creates QLDB tables and indexes through a custom resource; see its handler for the semantics. */
export class QldbTables extends Construct {
  readonly resource: CustomResource;

  constructor(scope: Construct, id: string, props: QldbTablesProps) {
    super(scope, id);
    const onEvent = new PerfFunction(this, 'OnEvent', {
      entry: 'lambda/custom-resources/qldb-tables.ts',
      description: 'Creates the lab QLDB tables and indexes (idempotent)',
      memorySize: 256,
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
    const provider = new cr.Provider(this, 'Provider', {
      onEventHandler: onEvent.function,
      logGroup: new logs.LogGroup(this, 'ProviderLogs', {
        retention: (props.logRetentionDays ?? 7) as logs.RetentionDays,
        removalPolicy: props.removalPolicy ?? RemovalPolicy.DESTROY,
      }),
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
