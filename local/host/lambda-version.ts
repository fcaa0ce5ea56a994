/**
 * The version Lambda names in `START RequestId: ... Version: <v>` for what the API invokes.
 * An unqualified function runs `$LATEST`; through an alias it runs the version the alias
 * points at, and the START line names that version's number, not the alias.
 */
import type { AssemblyFunction, Template } from '../assembly/cloud-assembly';

/**
 * The number a stack's first deployment gives the version its alias points at. Locally
 * nothing is ever published, so every alias runs version 1, as a fresh deployment's does.
 */
export const FIRST_PUBLISHED_VERSION = '1';

/** True when the JSON value refers to the logical id by Ref or Fn::GetAtt. */
function refersTo(value: unknown, logicalId: string): boolean {
  const json = JSON.stringify(value ?? null);
  return json.includes(`{"Ref":"${logicalId}"}`) || json.includes(`{"Fn::GetAtt":["${logicalId}",`);
}

/** `$LATEST` when the API invokes the function itself, the alias's version when it invokes an alias of it. */
export function invokedVersion(templates: Record<string, Template>, fn: AssemblyFunction): string {
  const resources = templates[fn.stackName]?.Resources ?? {};
  const aliases = Object.entries(resources)
    .filter(([, r]) => r.Type === 'AWS::Lambda::Alias' && refersTo(r.Properties?.FunctionName, fn.logicalId))
    .map(([id]) => id);
  const invokesAlias = Object.values(resources).some(
    (r) =>
      r.Type === 'AWS::ApiGateway::Method' &&
      aliases.some((id) => refersTo((r.Properties?.Integration as { Uri?: unknown } | undefined)?.Uri, id)),
  );
  return invokesAlias ? FIRST_PUBLISHED_VERSION : '$LATEST';
}
