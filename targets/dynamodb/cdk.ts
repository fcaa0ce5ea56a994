/**
 * DynamoDB: the Person table, GovId key, on demand, point-in-time recovery, and the index the
 * query reads: the newest Persons of a GovIdType (partition GovIdType, sort CreatedAt).
 */
import { CfnOutput } from 'aws-cdk-lib';
import * as dynamodb from 'aws-cdk-lib/aws-dynamodb';
import * as ec2 from 'aws-cdk-lib/aws-ec2';
import * as iam from 'aws-cdk-lib/aws-iam';
import type { Operation } from '../../core/lab-functions';
import { handOff } from '../../lib/constructs/hand-off';
import { PREWARM_ENV, type TargetDefinition } from '../../lib/targets/types';
import {
  BY_TYPE_INDEX,
  BY_TYPE_PARTITION,
  CREATED_AT,
  INDEX_OF,
  PERSON_KEY,
  SECTION,
  TOP_STORIES_INDEX,
  VIEWS,
} from './schema';

/** Exactly one action per operation; a query's (query, top10) applies to its index alone, not the table. */
const ACTIONS: Record<Operation, string> = {
  create: 'dynamodb:PutItem',
  get: 'dynamodb:GetItem',
  overwrite: 'dynamodb:PutItem',
  update: 'dynamodb:UpdateItem',
  query: 'dynamodb:Query',
  // Ten conditional puts, one after the other: PutItem, nothing more.
  put10: 'dynamodb:PutItem',
  view: 'dynamodb:UpdateItem',
  top10: 'dynamodb:Query',
};

export const dynamodbTarget: TargetDefinition = {
  createData(stack, { config, removalPolicy }) {
    const table = new dynamodb.Table(stack, 'PersonTable', {
      partitionKey: { name: PERSON_KEY, type: dynamodb.AttributeType.STRING },
      billingMode: dynamodb.BillingMode.PAY_PER_REQUEST,
      pointInTimeRecoverySpecification: { pointInTimeRecoveryEnabled: true },
      removalPolicy,
    });
    // Every attribute projected: the query answers from the index in one request, no table reads.
    table.addGlobalSecondaryIndex({
      indexName: BY_TYPE_INDEX,
      partitionKey: { name: BY_TYPE_PARTITION, type: dynamodb.AttributeType.STRING },
      sortKey: { name: CREATED_AT, type: dynamodb.AttributeType.NUMBER },
      projectionType: dynamodb.ProjectionType.ALL,
    });
    // The top 10's sparse index (news-top10): only viewed stories carry Section and Views.
    table.addGlobalSecondaryIndex({
      indexName: TOP_STORIES_INDEX,
      partitionKey: { name: SECTION, type: dynamodb.AttributeType.STRING },
      sortKey: { name: VIEWS, type: dynamodb.AttributeType.NUMBER },
      projectionType: dynamodb.ProjectionType.ALL,
    });
    new CfnOutput(stack, 'TableName', { value: table.tableName });
    // Read by the API stack through SSM parameters, not exports (constructs/hand-off.ts).
    const tableName = handOff(stack, 'dynamodb/table-name', table.tableName);
    const tableArn = handOff(stack, 'dynamodb/table-arn', table.tableArn);
    return {
      gatewayEndpoints: { DynamoDb: ec2.GatewayVpcEndpointAwsService.DYNAMODB },
      bind(fn, operation) {
        fn.addEnvironment('TABLE_NAME', tableName(fn));
        // Explicit statements, not table.grant: on a table with an index that names the table
        // and `index/*` both. Item actions need the table alone; a query, its one index alone.
        const arn = tableArn(fn);
        const index = INDEX_OF[operation];
        const resource = index === undefined ? arn : `${arn}/index/${index}`;
        fn.addToRolePolicy(new iam.PolicyStatement({ actions: [ACTIONS[operation]], resources: [resource] }));
        if (config.prewarmConnection) {
          // The init's cheap real call: it reads the table's description, never an item, so no
          // operation gains a data action it lacked (the query none on the table).
          fn.addEnvironment(PREWARM_ENV, 'on');
          fn.addToRolePolicy(
            new iam.PolicyStatement({ actions: ['dynamodb:DescribeTable'], resources: [arn] }),
          );
        }
      },
    };
  },
};
