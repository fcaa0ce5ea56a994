import { RemovalPolicy, Stack, type StackProps } from 'aws-cdk-lib';
import type { Construct } from 'constructs';
import type { Target } from '../../core/lab-functions';
import type { AppConfig } from '../config';
import { type DatabaseBinding, targetDefinition } from '../targets';

export interface DataStackProps extends StackProps {
  readonly config: AppConfig;
}

/** The databases of the targeted stores; each target's file in lib/targets/ says what it makes. */
export class DataStack extends Stack {
  readonly bindings = new Map<Target, DatabaseBinding>();

  constructor(scope: Construct, id: string, props: DataStackProps) {
    super(scope, id, props);
    const { config } = props;
    const removalPolicy = config.removalPolicy === 'retain' ? RemovalPolicy.RETAIN : RemovalPolicy.DESTROY;
    for (const target of config.targets) {
      this.bindings.set(target, targetDefinition(target).createData(this, { config, removalPolicy }));
    }
  }
}
