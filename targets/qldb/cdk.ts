/**
 * QLDB (end of support 2025-07-31): a ledger, and the tables custom resource that runs
 * CREATE TABLE Person, CREATE INDEX ON Person (GovId) and (GovIdType) idempotently.
 */
import { CfnOutput, Stack, Validations } from 'aws-cdk-lib';
import * as iam from 'aws-cdk-lib/aws-iam';
import * as qldb from 'aws-cdk-lib/aws-qldb';
import type { Operation } from '../../core/lab-functions';
import { handOff } from '../../lib/constructs/hand-off';
import { PREWARM_ENV, type TargetDefinition } from '../../lib/targets/types';
import { QldbTables } from './tables-construct';

export const PERSON_TABLE = 'Person';

// view and top10 are not QLDB's (core/lab-functions.ts OPERATION_TARGETS): no function to grant.
const PARTIQL_ACTIONS: Record<Exclude<Operation, 'view' | 'top10'>, string[]> = {
  create: ['qldb:PartiQLSelect', 'qldb:PartiQLInsert'],
  get: ['qldb:PartiQLSelect'],
  // DELETE + INSERT in one transaction (QLDB's UPDATE cannot replace a whole document).
  overwrite: ['qldb:PartiQLSelect', 'qldb:PartiQLDelete', 'qldb:PartiQLInsert'],
  update: ['qldb:PartiQLSelect', 'qldb:PartiQLUpdate'],
  query: ['qldb:PartiQLSelect'],
  // Ten creates (deployed on DynamoDB only: core/lab-functions.ts OPERATION_TARGETS).
  put10: ['qldb:PartiQLSelect', 'qldb:PartiQLInsert'],
};

export const qldbTarget: TargetDefinition = {
  createData(stack, { config, removalPolicy }) {
    const ledger = new qldb.CfnLedger(stack, 'Ledger', {
      permissionsMode: 'STANDARD',
      deletionProtection: config.removalPolicy === 'retain',
    });
    ledger.applyRemovalPolicy(removalPolicy);
    Validations.of(ledger).acknowledge({
      id: 'CloudFormation-Validate::E3710',
      reason:
        'QLDB reached end of support on 2025-07-31 and new ledgers cannot be created; this ledger is synthesized only when -c targets includes qldb, for accounts that still have QLDB and for the tests (docs/deploying.md: QLDB cannot be deployed).',
    });
    const tables = new QldbTables(stack, 'QldbTables', {
      ledgerName: ledger.ref,
      tables: [PERSON_TABLE],
      // GovIdType: the query's SELECT ... WHERE GovIdType = ? reads by index, not the whole table.
      indexes: [
        { Table: PERSON_TABLE, Attribute: 'GovId' },
        { Table: PERSON_TABLE, Attribute: 'GovIdType' },
      ],
      logRetentionDays: config.logRetentionDays,
      removalPolicy,
    });
    new CfnOutput(stack, 'LedgerName', { value: ledger.ref });
    // Read by the API stack through SSM parameters, not exports (constructs/hand-off.ts).
    const ledgerName = handOff(stack, 'qldb/ledger-name', ledger.ref);
    const tableIdOf = handOff(stack, 'qldb/person-table-id', tables.tableId(PERSON_TABLE));
    return {
      bind(fn, operation) {
        if (operation === 'view' || operation === 'top10') {
          throw new Error(`QLDB serves no ${operation} function (core/lab-functions.ts OPERATION_TARGETS)`);
        }
        const ledgerRef = ledgerName(fn);
        const tableId = tableIdOf(fn);
        fn.addEnvironment('LEDGER_NAME', ledgerRef);
        fn.addEnvironment('TABLE_NAME', PERSON_TABLE);
        // The init starts a session and selects nothing: SendCommand and PartiQLSelect, which
        // every operation already has.
        if (config.prewarmConnection) fn.addEnvironment(PREWARM_ENV, 'on');
        const ledgerArn = Stack.of(fn).formatArn({
          service: 'qldb',
          resource: 'ledger',
          resourceName: ledgerRef,
        });
        fn.addToRolePolicy(
          new iam.PolicyStatement({ actions: ['qldb:SendCommand'], resources: [ledgerArn] }),
        );
        fn.addToRolePolicy(
          new iam.PolicyStatement({
            actions: PARTIQL_ACTIONS[operation],
            resources: [`${ledgerArn}/table/${tableId}`],
          }),
        );
      },
    };
  },
};
