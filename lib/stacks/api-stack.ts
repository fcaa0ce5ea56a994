import { CfnOutput, RemovalPolicy, Stack, type StackProps } from 'aws-cdk-lib';
import * as apigateway from 'aws-cdk-lib/aws-apigateway';
import type * as dynamodb from 'aws-cdk-lib/aws-dynamodb';
import * as iam from 'aws-cdk-lib/aws-iam';
import * as lambda from 'aws-cdk-lib/aws-lambda';
import type { Construct } from 'constructs';
import type { AppConfig } from '../config';
import { PerfFunction } from '../constructs/perf-function';
import { type LabFunction, labFunctions } from '../routes';
import type { QldbTarget } from './data-stack';

export interface ApiStackProps extends StackProps {
  readonly config: AppConfig;
  readonly table: dynamodb.ITable;
  /** Required when `qldb` is targeted. */
  readonly qldb?: QldbTarget;
}

export interface DeployedFunction {
  readonly spec: LabFunction;
  readonly function: lambda.IFunction;
  /** What the API invokes: the alias when provisioned concurrency is on, else the function. */
  readonly invoked: lambda.IFunction;
}

/** The alias the API calls when provisioned concurrency is configured. */
export const LIVE_ALIAS = 'live';

export class ApiStack extends Stack {
  readonly api: apigateway.RestApi;
  readonly functions: DeployedFunction[] = [];

  constructor(scope: Construct, id: string, props: ApiStackProps) {
    super(scope, id, props);
    const { config } = props;
    const removalPolicy = config.removalPolicy === 'retain' ? RemovalPolicy.RETAIN : RemovalPolicy.DESTROY;

    this.api = new apigateway.RestApi(this, 'Api', {
      description: 'Serverless database latency lab',
      deployOptions: { stageName: 'lab', tracingEnabled: config.tracing },
      endpointTypes: [apigateway.EndpointType.REGIONAL],
      cloudWatchRole: false,
    });

    for (const spec of labFunctions(config.targets, config.keepAliveVariants)) {
      const fn = new PerfFunction(this, spec.id, {
        entry: `lambda/handlers/${spec.handlerFile}.ts`,
        description: `Latency lab ${spec.key} (keep-alive ${spec.keepAlive})`,
        memorySize: config.memorySize,
        tracing: config.tracing,
        sourceMaps: config.sourceMaps,
        logRetentionDays: config.logRetentionDays,
        removalPolicy,
        environment: { KEEP_ALIVE: spec.keepAlive, LAB_FUNCTION: spec.key },
      }).function;
      this.bindDatabase(fn, spec, props);

      const invoked =
        config.provisionedConcurrency > 0
          ? new lambda.Alias(this, `${spec.id}Live`, {
              aliasName: LIVE_ALIAS,
              version: fn.currentVersion,
              provisionedConcurrentExecutions: config.provisionedConcurrency,
            })
          : fn;
      this.api.root
        .resourceForPath(spec.path)
        .addMethod(spec.method, new apigateway.LambdaIntegration(invoked, { proxy: true }));
      this.functions.push({ spec, function: fn, invoked });

      new CfnOutput(this, `${spec.id}Name`, {
        value: fn.functionName,
        description: `${spec.key} function name`,
      });
      new CfnOutput(this, `${spec.id}Arn`, {
        value: invoked.functionArn,
        description: `${spec.key} invoked ARN`,
      });
    }
    new CfnOutput(this, 'ApiUrl', { value: this.api.url, description: 'Base URL of the lab API' });
  }

  /** Grants exactly what the operation needs and points the function at its database. */
  private bindDatabase(fn: lambda.Function, spec: LabFunction, props: ApiStackProps): void {
    if (spec.target === 'dynamodb') {
      fn.addEnvironment('TABLE_NAME', props.table.tableName);
      props.table.grant(fn, spec.operation === 'create' ? 'dynamodb:PutItem' : 'dynamodb:GetItem');
      return;
    }
    if (!props.qldb) throw new Error('ApiStack: the qldb target needs DataStack.qldb');
    const { ledgerName, tableName, tableId } = props.qldb;
    fn.addEnvironment('LEDGER_NAME', ledgerName);
    fn.addEnvironment('TABLE_NAME', tableName);
    const ledgerArn = this.formatArn({ service: 'qldb', resource: 'ledger', resourceName: ledgerName });
    fn.addToRolePolicy(new iam.PolicyStatement({ actions: ['qldb:SendCommand'], resources: [ledgerArn] }));
    fn.addToRolePolicy(
      new iam.PolicyStatement({
        actions:
          spec.operation === 'create' ? ['qldb:PartiQLSelect', 'qldb:PartiQLInsert'] : ['qldb:PartiQLSelect'],
        resources: [`${ledgerArn}/table/${tableId}`],
      }),
    );
  }
}
