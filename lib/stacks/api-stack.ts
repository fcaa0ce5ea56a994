import { CfnOutput, RemovalPolicy, Stack, type StackProps, Validations } from 'aws-cdk-lib';
import * as apigateway from 'aws-cdk-lib/aws-apigateway';
import * as lambda from 'aws-cdk-lib/aws-lambda';
import * as logs from 'aws-cdk-lib/aws-logs';
import type { Construct } from 'constructs';
import { type LabFunction, labFunctions, type Operation, type Target } from '../../core/lab-functions';
import type { AppConfig } from '../config';
import { ManagedInstances } from '../constructs/managed-instances';
import { PerfFunction } from '../constructs/perf-function';
import type { DatabaseBinding } from '../targets';

export interface ApiStackProps extends StackProps {
  readonly config: AppConfig;
  /** How each targeted database is bound to a function (DataStack.bindings). */
  readonly bindings: ReadonlyMap<Target, DatabaseBinding>;
}

export interface DeployedFunction {
  readonly spec: LabFunction;
  readonly function: lambda.IFunction;
  /** What the API invokes: the alias when provisioned concurrency is on, else the function. */
  readonly invoked: lambda.IFunction;
}

/**
 * What the request validator requires of each operation before the function runs: the path's
 * GovId, and the query's govIdType (a missing one is API Gateway's 400, no invocation).
 */
const REQUIRED_PARAMETERS: Record<Operation, Record<string, boolean> | undefined> = {
  create: undefined,
  get: { 'method.request.path.govId': true },
  overwrite: { 'method.request.path.govId': true },
  update: { 'method.request.path.govId': true },
  query: { 'method.request.querystring.govIdType': true },
  put10: undefined,
  view: { 'method.request.path.govId': true },
  top10: undefined,
};

/** The alias the API calls when provisioned concurrency is configured. */
export const LIVE_ALIAS = 'live';

/**
 * A function's construct id on Managed Instances. A capacity provider configuration can be neither
 * added to a function nor removed from it once the function exists, so each compute mode has its
 * own function resource: switching mode replaces the functions (docs/managed-instances.md).
 */
export const onInstancesId = (id: string): string => `${id}OnInstances`;

export class ApiStack extends Stack {
  readonly api: apigateway.RestApi;
  readonly functions: DeployedFunction[] = [];

  constructor(scope: Construct, id: string, props: ApiStackProps) {
    super(scope, id, props);
    const { config } = props;
    const removalPolicy = config.removalPolicy === 'retain' ? RemovalPolicy.RETAIN : RemovalPolicy.DESTROY;

    const accessLogs = new logs.LogGroup(this, 'AccessLogs', {
      retention: config.logRetentionDays as logs.RetentionDays,
      removalPolicy,
    });
    this.api = new apigateway.RestApi(this, 'Api', {
      description: 'Serverless database latency lab',
      deployOptions: {
        stageName: 'lab',
        tracingEnabled: config.tracing,
        // A lab in someone's account must not be an open door or an open tap.
        throttlingRateLimit: config.apiRateLimit,
        throttlingBurstLimit: config.apiBurstLimit,
        accessLogDestination: new apigateway.LogGroupLogDestination(accessLogs),
        accessLogFormat: apigateway.AccessLogFormat.jsonWithStandardFields(),
      },
      endpointTypes: [apigateway.EndpointType.REGIONAL],
      // API Gateway refuses a stage with access logs until the region's account settings name a
      // CloudWatch role, so a fresh account needs one set. Retained: `cdk destroy` must never leave
      // that account-wide setting pointing at a deleted role, which breaks every API's logging.
      cloudWatchRole: true,
      cloudWatchRoleRemovalPolicy: RemovalPolicy.RETAIN,
      // IAM (SigV4) on every method: only principals of this account with execute-api:Invoke get in.
      defaultMethodOptions: { authorizationType: apigateway.AuthorizationType.IAM },
    });
    // Parameters only. Bodies have no API Gateway model on purpose: the handler's validation
    // answers 400 naming the failing field with the timing block, the same locally and in the
    // cloud, where a model would answer API Gateway's own {"message": "Invalid request body"}.
    // A body check without a model checks nothing, so it is not switched on at all.
    const validator = this.api.addRequestValidator('Validator', {
      validateRequestParameters: true,
      validateRequestBody: false,
    });

    const managed =
      config.managedInstances === undefined
        ? undefined
        : new ManagedInstances(this, 'ManagedInstances', {
            config: config.managedInstances,
            gatewayEndpoints: Object.assign(
              {},
              ...config.targets.map((t) => props.bindings.get(t)?.gatewayEndpoints ?? {}),
            ),
            logRetentionDays: config.logRetentionDays,
            removalPolicy,
          });
    if (managed) {
      new CfnOutput(this, 'CapacityProviderArn', {
        value: managed.capacityProvider.capacityProviderArn,
        description: 'The Lambda Managed Instances capacity provider the functions run on',
      });
    }

    for (const spec of labFunctions(config.targets, config.keepAliveVariants, config.operations)) {
      const binding = props.bindings.get(spec.target);
      if (!binding) throw new Error(`ApiStack: no database binding for target ${spec.target}`);
      const perf = new PerfFunction(this, managed ? onInstancesId(spec.id) : spec.id, {
        // The target's own first (a VPC, an extension), so the lab's settings below win.
        ...binding.functionProps?.(this, spec),
        entry: spec.entry,
        handler: spec.handlerExport,
        description: `Latency lab ${spec.key} (keep-alive ${spec.keepAlive})`,
        memorySize: config.memorySize,
        tracing: config.tracing,
        sourceMaps: config.sourceMaps,
        logRetentionDays: config.logRetentionDays,
        removalPolicy,
        environment: { KEEP_ALIVE: spec.keepAlive, LAB_FUNCTION: spec.key },
      });
      const fn = perf.function;
      binding.bind(fn, spec.operation);
      managed?.add(fn);

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
        .addMethod(spec.method, new apigateway.LambdaIntegration(invoked), {
          requestValidator: validator,
          requestParameters: REQUIRED_PARAMETERS[spec.operation],
        });
      this.functions.push({ spec, function: fn, invoked });

      new CfnOutput(this, `${spec.id}Name`, {
        value: fn.functionName,
        description: `${spec.key} function name`,
      });
      new CfnOutput(this, `${spec.id}Arn`, {
        value: invoked.functionArn,
        description: `${spec.key} invoked ARN`,
      });
      new CfnOutput(this, `${spec.id}LogGroup`, {
        value: perf.logGroup.logGroupName,
        description: `${spec.key} log group (npm run report -- --from-cloudwatch)`,
      });
    }
    new CfnOutput(this, 'ApiUrl', { value: this.api.url, description: 'Base URL of the lab API' });
    this.acknowledgeApiFindings();
  }

  /** cdk-nag AwsSolutions findings that are decisions, each with its reason. */
  private acknowledgeApiFindings(): void {
    const stage = this.api.deploymentStage;
    Validations.of(stage).acknowledge(
      {
        id: 'AwsSolutions-APIG3',
        reason:
          'No WAF web ACL: every method requires SigV4 (IAM) and the stage is throttled; a web ACL would add a per-request charge and its own latency to every measurement.',
      },
      {
        id: 'AwsSolutions-APIG6',
        reason:
          'Execution logging is left off on purpose (the account role it needs is set above): it writes many lines per request into a log group API Gateway creates itself (API-Gateway-Execution-Logs_<api id>/lab), outside the stack, never expiring and left behind by cdk destroy; access logs record every request with status and latency, and the functions log every invocation.',
      },
    );
    Validations.of(this.api.node.defaultChild as apigateway.CfnRestApi).acknowledge({
      id: 'AwsSolutions-APIG2',
      reason:
        "Request parameters are validated by API Gateway; bodies by the handlers (lambda/shared/person.ts), which answer 400 naming the field with the timing block, locally and in the cloud alike. A body check without a request model checks nothing, and a model would answer API Gateway's own 400 instead.",
    });
    const cloudWatchRole = this.api.node.findChild('CloudWatchRole');
    Validations.of(cloudWatchRole).acknowledge({
      id: 'AwsSolutions-IAM4[Policy::arn:<AWS::Partition>:iam::aws:policy/service-role/AmazonAPIGatewayPushToCloudWatchLogs]',
      reason:
        "The account-wide role API Gateway assumes to write any API's logs in this region, access logs included; AWS documents this managed policy for it, and API Gateway names log groups per API and stage, so no narrower resource fits every API of the account.",
    });
    for (const child of this.api.methods) {
      Validations.of(child).acknowledge({
        id: 'AwsSolutions-COG4',
        reason:
          'IAM authorization is used instead of a Cognito authorizer: callers are principals of this AWS account, not end users.',
      });
    }
  }
}
