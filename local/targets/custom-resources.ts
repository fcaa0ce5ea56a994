/**
 * Custom resources run locally as CloudFormation runs them: for each resource of a type, find
 * the Provider framework function its ServiceToken names, the user onEvent function that
 * framework calls, and invoke that function's real bundle with a Create event.
 */
import { randomUUID } from 'node:crypto';
import type { Assembly, AssemblyFunction, TemplateResource } from '../assembly/cloud-assembly';
import { type LocalResources, localEnvironment } from '../assembly/environment';
import { ExecutionEnvironment } from '../host/execution-environment';

type Json = Record<string, unknown>;

const getAtt = (v: unknown): string | undefined => {
  const att = typeof v === 'object' && v !== null ? (v as Json)['Fn::GetAtt'] : undefined;
  return Array.isArray(att) && typeof att[0] === 'string' ? att[0] : undefined;
};

/** Resolves Refs to local names; literals stay; anything else is refused by name. */
function resolveProperties(
  stack: string,
  props: Json,
  resources: Record<string, TemplateResource>,
  local: LocalResources,
): Json {
  const walk = (v: unknown): unknown => {
    if (Array.isArray(v)) return v.map(walk);
    if (typeof v !== 'object' || v === null) return v;
    const o = v as Json;
    if (typeof o.Ref === 'string') {
      const name = local.nameOf(stack, o.Ref, resources[o.Ref]?.Type ?? '');
      if (name === undefined) throw new Error(`custom resource property Ref ${o.Ref} has no local resource`);
      return name;
    }
    return Object.fromEntries(Object.entries(o).map(([k, x]) => [k, walk(x)]));
  };
  return walk(props) as Json;
}

function onEventFunction(assembly: Assembly, stack: string, serviceToken: unknown): AssemblyFunction {
  const frameworkId = getAtt(serviceToken);
  const framework = assembly.templates[stack]?.Resources[frameworkId ?? ''];
  const vars = ((framework?.Properties?.Environment as Json | undefined)?.Variables ?? {}) as Json;
  const userId = getAtt(vars.USER_ON_EVENT_FUNCTION_ARN) ?? frameworkId;
  const fn = assembly.functions.find((f) => f.stackName === stack && f.logicalId === userId);
  if (!fn) throw new Error(`${stack}: no bundled onEvent function behind ServiceToken ${frameworkId}`);
  return fn;
}

/**
 * Invokes every custom resource of `type` with a Create event; returns each one's Data.
 * A failed invocation throws with the function's own error, as a failed stack would show it.
 */
export async function runCustomResources(
  assembly: Assembly,
  type: string,
  local: LocalResources,
  log: (line: string) => void,
): Promise<Json[]> {
  const out: Json[] = [];
  for (const [stack, template] of Object.entries(assembly.templates)) {
    for (const [logicalId, resource] of Object.entries(template.Resources)) {
      if (resource.Type !== type) continue;
      const { ServiceToken, ...props } = resource.Properties ?? {};
      const fn = onEventFunction(assembly, stack, ServiceToken);
      const env = localEnvironment(fn, assembly.templates, local);
      const event = {
        RequestType: 'Create',
        ServiceToken: `local:${fn.name}`,
        ResponseURL: 'http://127.0.0.1/unused',
        StackId: `arn:aws:cloudformation:${env.AWS_REGION}:000000000000:stack/${stack}/local`,
        RequestId: randomUUID(),
        LogicalResourceId: logicalId,
        ResourceType: type,
        ResourceProperties: {
          ServiceToken: `local:${fn.name}`,
          ...resolveProperties(stack, props, template.Resources, local),
        },
      };
      const environment = await ExecutionEnvironment.start({
        fn,
        env,
        initType: 'on-demand',
        onLog: (line) => log(`[${type} ${logicalId}] ${line}`),
        onExit: () => {},
      });
      try {
        const outcome = await environment.invoke(randomUUID(), event, fn.timeoutSeconds * 1000);
        if (outcome.kind !== 'result') {
          const why =
            outcome.kind === 'error'
              ? `${outcome.error.errorType}: ${outcome.error.errorMessage}`
              : outcome.kind;
          throw new Error(`${type} ${logicalId} failed to create: ${why}`);
        }
        const data = (outcome.response as Json | null)?.Data;
        out.push(typeof data === 'object' && data !== null ? (data as Json) : {});
      } finally {
        await environment.stop();
      }
    }
  }
  return out;
}
