/**
 * Values the data stack hands to the functions of the API stack, through SSM parameters
 * rather than CloudFormation exports.
 *
 * Why: an export cannot be removed while another stack imports it, and CloudFormation updates
 * the data stack first. Deploying `-c targets=dynamodb,dsql` and then `-c targets=dynamodb`
 * would make the data stack drop the DSQL exports that the live API stack still imports, and
 * the deploy fails. A parameter carries no such lock: the data stack removes it with its
 * target, and the API stack, updated next, no longer reads it. The API stack reads each one as
 * a template parameter of type `AWS::SSM::Parameter::Value<String>`, which CloudFormation
 * resolves at every update of that stack (so a replaced cluster's new id reaches the functions
 * on the API stack's next update). One stack per target would also avoid exports between
 * targets, but a target removed from the app leaves its stack deployed (cdk deploy never
 * deletes a stack) until the user destroys it by hand: the parameters leave nothing behind.
 */
import { Stack } from 'aws-cdk-lib';
import * as ssm from 'aws-cdk-lib/aws-ssm';
import type { Construct, IConstruct } from 'constructs';

/** A value of the data stack, as the stack of `consumer` reads it. */
export type HandedValue = (consumer: IConstruct) => string;

/** The parameter's name: under the producing stack's name, so two labs in one account never meet. */
export function handOffParameterName(stackName: string, key: string): string {
  return `/${stackName}/${key}`;
}

/**
 * Writes `value` to an SSM parameter in `scope`'s stack and returns how any stack reads it:
 * the value itself in the same stack, the parameter elsewhere. `key` is a path such as
 * `dsql/cluster-id` (letters, digits, '-', '_', '.', '/').
 */
export function handOff(scope: Construct, key: string, value: string, description?: string): HandedValue {
  if (!/^[A-Za-z0-9_.-]+(\/[A-Za-z0-9_.-]+)*$/.test(key)) throw new Error(`handOff: bad key ${key}`);
  const producer = Stack.of(scope);
  const parameterName = handOffParameterName(producer.stackName, key);
  const id = `HandOff${key.replace(/(^|[^A-Za-z0-9])([A-Za-z0-9])/g, (_m, _s, c: string) => c.toUpperCase())}`;
  new ssm.StringParameter(scope, id, {
    parameterName,
    stringValue: value,
    description: description ?? `Latency lab: ${key}, read by the API stack's functions`,
  });
  return (consumer) => {
    const stack = Stack.of(consumer);
    if (stack === producer) return value;
    // The consumer is deployed after the producer: its parameters must exist when it resolves them.
    stack.addStackDependency(producer, `reads SSM parameter ${parameterName}`);
    return ssm.StringParameter.valueForStringParameter(stack, parameterName);
  };
}
