import { type CfnResource, RemovalPolicy, Stack, Validations } from 'aws-cdk-lib';
import * as logs from 'aws-cdk-lib/aws-logs';
import * as cr from 'aws-cdk-lib/custom-resources';
import type { Construct } from 'constructs';
import type { PerfFunction } from './perf-function';

export interface LabProviderProps {
  /** @default 7 */
  readonly logRetentionDays?: number;
  /** @default RemovalPolicy.DESTROY */
  readonly removalPolicy?: RemovalPolicy;
}

/**
 * The CDK Provider framework in front of a custom resource's onEvent function, with its own
 * log group and the cdk-nag findings it brings acknowledged (its dispatcher's role is not ours
 * to shape). Created as `Provider` and `ProviderLogs` in `scope`.
 */
export function labProvider(scope: Construct, onEvent: PerfFunction, props: LabProviderProps): cr.Provider {
  const provider = new cr.Provider(scope, 'Provider', {
    onEventHandler: onEvent.function,
    logGroup: new logs.LogGroup(scope, 'ProviderLogs', {
      retention: (props.logRetentionDays ?? 7) as logs.RetentionDays,
      removalPolicy: props.removalPolicy ?? RemovalPolicy.DESTROY,
    }),
  });
  const onEventId = Stack.of(scope).getLogicalId(onEvent.function.node.defaultChild as CfnResource);
  Validations.of(provider).acknowledge(
    {
      id: 'AwsSolutions-IAM4[Policy::arn:<AWS::Partition>:iam::aws:policy/service-role/AWSLambdaBasicExecutionRole]',
      reason:
        'The CDK Provider framework creates this role for its own dispatcher function and offers no way to replace it.',
    },
    {
      id: `AwsSolutions-IAM5[Resource::<${onEventId}.Arn>:*]`,
      reason:
        'The Provider framework invokes the onEvent function by any version or alias of that one function.',
    },
  );
  return provider;
}
