/**
 * Turns a function's template environment into what a local execution environment gets:
 * literal values as they are, cross-stack references resolved to local resources, and
 * the variables Lambda itself sets. Nothing is inherited from the host's own environment,
 * so real AWS credentials on the machine never reach a local function.
 */
import type { AssemblyFunction, Template } from './cloud-assembly';

export interface LocalResources {
  /**
   * Physical name to use locally for a resource, by stack and logical id (e.g. a table); for an
   * attribute (Fn::GetAtt), `type` is the resource type, '#' and the attribute, e.g.
   * `AWS::RDS::DBCluster#Endpoint.Address`.
   */
  readonly nameOf: (stackName: string, logicalId: string, type: string) => string | undefined;
  /** Extra variables: endpoints, credentials, CA bundle. */
  readonly extra: Record<string, string>;
}

function findExport(
  templates: Record<string, Template>,
  exportName: string,
): { stack: string; value: unknown } | undefined {
  for (const [stack, t] of Object.entries(templates)) {
    for (const output of Object.values(t.Outputs ?? {})) {
      const name = (output.Export as { Name?: unknown } | undefined)?.Name;
      if (name === exportName) return { stack, value: output.Value };
    }
  }
  return undefined;
}

/**
 * The value an SSM parameter of the lab holds: the AWS::SSM::Parameter resource of that name in
 * any stack (lib/constructs/hand-off.ts), as CloudFormation would read it when it resolves a
 * parameter of type AWS::SSM::Parameter::Value<String>.
 */
function findSsmParameter(
  templates: Record<string, Template>,
  parameterName: string,
): { stack: string; value: unknown } | undefined {
  for (const [stack, t] of Object.entries(templates)) {
    for (const r of Object.values(t.Resources)) {
      if (r.Type === 'AWS::SSM::Parameter' && r.Properties?.Name === parameterName) {
        return { stack, value: r.Properties.Value };
      }
    }
  }
  return undefined;
}

function resolveValue(
  templates: Record<string, Template>,
  stackName: string,
  value: unknown,
  local: LocalResources,
): string | undefined {
  if (typeof value === 'string' || typeof value === 'number' || typeof value === 'boolean')
    return String(value);
  if (typeof value !== 'object' || value === null) return undefined;
  const v = value as Record<string, unknown>;
  if (typeof v.Ref === 'string') {
    const parameter = templates[stackName]?.Parameters?.[v.Ref];
    if (parameter) {
      if (parameter.Type !== 'AWS::SSM::Parameter::Value<String>' || typeof parameter.Default !== 'string')
        return undefined;
      const ssm = findSsmParameter(templates, parameter.Default);
      return ssm ? resolveValue(templates, ssm.stack, ssm.value, local) : undefined;
    }
    const r = templates[stackName]?.Resources[v.Ref];
    return r ? local.nameOf(stackName, v.Ref, r.Type) : undefined;
  }
  const att = v['Fn::GetAtt'];
  if (Array.isArray(att) && typeof att[0] === 'string' && typeof att[1] === 'string') {
    const r = templates[stackName]?.Resources[att[0]];
    return r ? local.nameOf(stackName, att[0], `${r.Type}#${att[1]}`) : undefined;
  }
  if (typeof v['Fn::ImportValue'] === 'string') {
    const exp = findExport(templates, v['Fn::ImportValue']);
    return exp ? resolveValue(templates, exp.stack, exp.value, local) : undefined;
  }
  return undefined;
}

/**
 * Lambda runs the template's runtime (nodejs24.x); this machine's Node may be older, and
 * the SDK would then print a Node-version warning in every environment's init, a log line
 * and a stderr write that a deployed function never has.
 */
export const RUNTIME_PARITY_ENV: Record<string, string> = {
  AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: 'true',
};

export class UnresolvableEnvironmentError extends Error {}

export function localEnvironment(
  fn: AssemblyFunction,
  templates: Record<string, Template>,
  local: LocalResources,
): Record<string, string> {
  const env: Record<string, string> = {};
  for (const [key, value] of Object.entries(fn.environment)) {
    // The lab sets it itself (a target's endpoint behind its model): the template's value, an
    // attribute of a cloud resource that has no local name, is replaced anyway.
    if (key in local.extra) continue;
    const resolved = resolveValue(templates, fn.stackName, value, local);
    if (resolved === undefined) {
      throw new UnresolvableEnvironmentError(
        `${fn.name}: cannot resolve ${key}=${JSON.stringify(value)} to a local resource`,
      );
    }
    env[key] = resolved;
  }
  return {
    ...env,
    AWS_LAMBDA_FUNCTION_NAME: fn.name,
    AWS_LAMBDA_FUNCTION_VERSION: '$LATEST',
    AWS_LAMBDA_FUNCTION_MEMORY_SIZE: String(fn.memorySize),
    AWS_EXECUTION_ENV: `AWS_Lambda_${fn.runtime}`,
    TZ: ':UTC',
    ...RUNTIME_PARITY_ENV,
    ...local.extra,
  };
}
