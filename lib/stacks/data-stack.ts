import { CfnOutput, RemovalPolicy, Stack, type StackProps, Validations } from 'aws-cdk-lib';
import * as dynamodb from 'aws-cdk-lib/aws-dynamodb';
import * as qldb from 'aws-cdk-lib/aws-qldb';
import type { Construct } from 'constructs';
import type { AppConfig } from '../config';
import { QldbTables } from '../constructs/qldb-tables';

export const PERSON_TABLE = 'Person';

export interface QldbTarget {
  readonly ledgerName: string;
  readonly tableName: string;
  readonly tableId: string;
}

export interface DataStackProps extends StackProps {
  readonly config: AppConfig;
}

export class DataStack extends Stack {
  readonly table: dynamodb.Table;
  /** Present only when `qldb` is targeted. */
  readonly qldb?: QldbTarget;

  constructor(scope: Construct, id: string, props: DataStackProps) {
    super(scope, id, props);
    const { config } = props;
    const removalPolicy = config.removalPolicy === 'retain' ? RemovalPolicy.RETAIN : RemovalPolicy.DESTROY;

    this.table = new dynamodb.Table(this, 'PersonTable', {
      partitionKey: { name: 'GovId', type: dynamodb.AttributeType.STRING },
      billingMode: dynamodb.BillingMode.PAY_PER_REQUEST,
      pointInTimeRecoverySpecification: { pointInTimeRecoveryEnabled: true },
      removalPolicy,
    });
    new CfnOutput(this, 'TableName', { value: this.table.tableName });

    if (config.targets.includes('qldb')) {
      const ledger = new qldb.CfnLedger(this, 'Ledger', {
        permissionsMode: 'STANDARD',
        deletionProtection: config.removalPolicy === 'retain',
      });
      ledger.applyRemovalPolicy(removalPolicy);
      Validations.of(ledger).acknowledge({
        id: 'CloudFormation-Validate::E3710',
        reason:
          'QLDB reached end of support on 2025-07-31 and new ledgers cannot be created; this ledger is synthesized only when -c targets includes qldb, for accounts that still have QLDB and for the tests (README: why QLDB is off by default).',
      });
      const tables = new QldbTables(this, 'QldbTables', {
        ledgerName: ledger.ref,
        tables: [PERSON_TABLE],
        indexes: [{ Table: PERSON_TABLE, Attribute: 'GovId' }],
        logRetentionDays: config.logRetentionDays,
        removalPolicy,
      });
      this.qldb = { ledgerName: ledger.ref, tableName: PERSON_TABLE, tableId: tables.tableId(PERSON_TABLE) };
      new CfnOutput(this, 'LedgerName', { value: ledger.ref });
    }
  }
}
