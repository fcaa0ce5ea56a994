import { ArnFormat, CfnOutput, Stack, type StackProps } from 'aws-cdk-lib';
import * as sam from 'aws-cdk-lib/aws-sam';
import type { Construct } from 'constructs';

export interface PowerTuningStackProps extends StackProps {
  /** SAR application id of aws-lambda-power-tuning. */
  readonly applicationId: string;
  /** Pinned semantic version, e.g. 4.4.0. */
  readonly semanticVersion: string;
  /** Name of the stack whose functions may be tuned. */
  readonly functionStackName: string;
  /** @default '128,256,512,1024,1769' */
  readonly powerValues?: string;
}

/**
 * The official AWS Lambda Power Tuning application. Its `lambdaResource` parameter is a
 * single ARN (or prefix) used in every IAM statement of the tuner, so it is scoped to
 * the functions CloudFormation names after the API stack: `function:<ApiStack>-*`,
 * which also covers their versions and aliases.
 */
export class PowerTuningStack extends Stack {
  readonly application: sam.CfnApplication;

  constructor(scope: Construct, id: string, props: PowerTuningStackProps) {
    super(scope, id, props);
    const lambdaResource = this.formatArn({
      service: 'lambda',
      resource: 'function',
      resourceName: `${props.functionStackName}-*`,
      arnFormat: ArnFormat.COLON_RESOURCE_NAME,
    });
    this.application = new sam.CfnApplication(this, 'PowerTuning', {
      location: { applicationId: props.applicationId, semanticVersion: props.semanticVersion },
      parameters: {
        lambdaResource,
        PowerValues: props.powerValues ?? '128,256,512,1024,1769',
      },
    });
    new CfnOutput(this, 'StateMachineArn', {
      value: this.application.getAtt('Outputs.StateMachineARN').toString(),
      description: 'Power Tuning state machine (npm run tune starts it)',
    });
  }
}
