/** DynamoDB: the Person table, GovId key, on demand, point-in-time recovery. */
import { CfnOutput } from 'aws-cdk-lib';
import * as dynamodb from 'aws-cdk-lib/aws-dynamodb';
import type { Operation } from '../../core/lab-functions';
import type { TargetDefinition } from './types';

const ACTIONS: Record<Operation, string> = { create: 'dynamodb:PutItem', get: 'dynamodb:GetItem' };

export const dynamodbTarget: TargetDefinition = {
  createData(stack, { removalPolicy }) {
    const table = new dynamodb.Table(stack, 'PersonTable', {
      partitionKey: { name: 'GovId', type: dynamodb.AttributeType.STRING },
      billingMode: dynamodb.BillingMode.PAY_PER_REQUEST,
      pointInTimeRecoverySpecification: { pointInTimeRecoveryEnabled: true },
      removalPolicy,
    });
    new CfnOutput(stack, 'TableName', { value: table.tableName });
    return {
      bind(fn, operation) {
        fn.addEnvironment('TABLE_NAME', table.tableName);
        table.grant(fn, ACTIONS[operation]);
      },
    };
  },
};
