/**
 * Reads what `cdk synth` wrote to cdk.out/ and maps it the way API Gateway and Lambda
 * would: route -> method -> integration (function or alias) -> function -> bundle folder
 * + handler + environment. Used by the local host and the bundle size report, so what
 * runs locally is exactly what deploys.
 */
import { existsSync, readFileSync } from 'node:fs';
import { isAbsolute, join } from 'node:path';

type Json = Record<string, unknown>;

export interface TemplateResource {
  readonly Type: string;
  readonly Properties?: Json;
  readonly Metadata?: Json;
}

export interface Template {
  readonly Resources: Record<string, TemplateResource>;
  readonly Outputs?: Record<string, Json>;
  /** Template parameters: the API stack reads the data stack's SSM parameters through them. */
  readonly Parameters?: Record<string, Json>;
}

export interface AssemblyFunction {
  readonly stackName: string;
  readonly logicalId: string;
  /** LAB_FUNCTION from the environment (e.g. `dynamodb-get`), or the logical id. */
  readonly name: string;
  /** Absolute path of the bundle folder. */
  readonly assetDir: string;
  /** `index.handler` -> file `index.mjs|js|cjs` in assetDir, export `handler`. */
  readonly handler: string;
  readonly runtime: string;
  /** The template's first Architectures entry. @default Lambda's default, x86_64 */
  readonly architecture?: 'x86_64' | 'arm64';
  readonly memorySize: number;
  readonly timeoutSeconds: number;
  /** Template values: strings as they are, intrinsics (Ref, ImportValue...) kept as objects. */
  readonly environment: Record<string, unknown>;
  /** Provisioned executions on the alias the API invokes; 0 when it invokes the function. */
  readonly provisionedConcurrency: number;
  /**
   * The template's CapacityProviderConfig (Lambda Managed Instances), its numbers as written.
   * @default undefined: the function runs on standard Lambda
   */
  readonly capacityProvider?: { readonly maxConcurrency?: number; readonly memoryGiBPerVCpu?: number };
}

export interface Route {
  readonly method: string;
  /** e.g. `/dynamodb/person/{govId}` */
  readonly path: string;
  readonly function: AssemblyFunction;
  /**
   * Query string parameters the method's request validator requires (`govIdType` for the
   * query): API Gateway answers 400 without invoking when one is missing.
   * @default - none
   */
  readonly requiredQuery?: readonly string[];
}

export interface Assembly {
  readonly dir: string;
  readonly templates: Record<string, Template>;
  readonly functions: AssemblyFunction[];
  readonly routes: Route[];
  /** The API stage name (the first path segment of the API URL). */
  readonly stage: string;
}

export class AssemblyError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'AssemblyError';
  }
}

interface Manifest {
  readonly artifacts?: Record<string, { type: string; properties?: { templateFile?: string } }>;
}

export function readTemplates(dir: string): Record<string, Template> {
  const manifestPath = join(dir, 'manifest.json');
  if (!existsSync(manifestPath)) throw new AssemblyError(`${dir} has no manifest.json: run cdk synth first`);
  const manifest = JSON.parse(readFileSync(manifestPath, 'utf8')) as Manifest;
  const out: Record<string, Template> = {};
  for (const [name, artifact] of Object.entries(manifest.artifacts ?? {})) {
    const file = artifact.properties?.templateFile;
    if (artifact.type !== 'aws:cloudformation:stack' || !file) continue;
    out[name] = JSON.parse(readFileSync(join(dir, file), 'utf8')) as Template;
  }
  return out;
}

const refOf = (v: unknown): string | undefined =>
  typeof v === 'object' && v !== null && typeof (v as Json).Ref === 'string'
    ? ((v as Json).Ref as string)
    : undefined;

const getAttOf = (v: unknown): [string, string] | undefined => {
  const att = typeof v === 'object' && v !== null ? (v as Json)['Fn::GetAtt'] : undefined;
  return Array.isArray(att) && att.length === 2 ? [String(att[0]), String(att[1])] : undefined;
};

function readFunction(
  dir: string,
  stackName: string,
  logicalId: string,
  r: TemplateResource,
): AssemblyFunction | undefined {
  const assetPath = r.Metadata?.['aws:asset:path'];
  if (typeof assetPath !== 'string') return undefined;
  const p = r.Properties ?? {};
  const environment = ((p.Environment as Json | undefined)?.Variables ?? {}) as Record<string, unknown>;
  const labName = environment.LAB_FUNCTION;
  return {
    stackName,
    logicalId,
    name: typeof labName === 'string' ? labName : logicalId,
    assetDir: isAbsolute(assetPath) ? assetPath : join(dir, assetPath),
    handler: String(p.Handler ?? 'index.handler'),
    runtime: String(p.Runtime ?? ''),
    ...architectureOf(p.Architectures),
    memorySize: Number(p.MemorySize ?? 128),
    timeoutSeconds: Number(p.Timeout ?? 3),
    environment,
    provisionedConcurrency: 0,
    ...capacityProviderOf(p.CapacityProviderConfig),
  };
}

/** LambdaManagedInstancesCapacityProviderConfig's two numbers, where the template has one. */
function capacityProviderOf(v: unknown): Pick<AssemblyFunction, 'capacityProvider'> {
  const c = (v as { LambdaManagedInstancesCapacityProviderConfig?: Record<string, unknown> } | undefined)
    ?.LambdaManagedInstancesCapacityProviderConfig;
  if (!c || typeof c !== 'object') return {};
  const num = (x: unknown) => (typeof x === 'number' ? x : undefined);
  const maxConcurrency = num(c.PerExecutionEnvironmentMaxConcurrency);
  const memoryGiBPerVCpu = num(c.ExecutionEnvironmentMemoryGiBPerVCpu);
  return {
    capacityProvider: {
      ...(maxConcurrency === undefined ? {} : { maxConcurrency }),
      ...(memoryGiBPerVCpu === undefined ? {} : { memoryGiBPerVCpu }),
    },
  };
}

function architectureOf(v: unknown): { architecture?: 'x86_64' | 'arm64' } {
  const first = Array.isArray(v) ? v[0] : undefined;
  return first === 'arm64' || first === 'x86_64' ? { architecture: first } : {};
}

/** Walks Resource.ParentId up to the root to rebuild the full path. */
function resourcePath(resources: Record<string, TemplateResource>, id: string | undefined): string {
  if (id === undefined) return '';
  const r = resources[id];
  if (r?.Type !== 'AWS::ApiGateway::Resource') return '';
  const parentId = refOf(r.Properties?.ParentId);
  return `${parentId ? resourcePath(resources, parentId) : ''}/${String(r.Properties?.PathPart)}`;
}

/** The logical id of the function or alias in an AWS_PROXY integration URI. */
function integrationTarget(uri: unknown): string | undefined {
  const join = (uri as Json | undefined)?.['Fn::Join'];
  if (!Array.isArray(join)) return undefined;
  for (const part of join[1] as unknown[]) {
    const ref = refOf(part);
    if (ref && !ref.startsWith('AWS::')) return ref; // skip pseudo parameters such as AWS::Partition
    const att = getAttOf(part);
    if (att) return att[0];
  }
  return undefined;
}

/** `method.request.querystring.X: true` of a method whose validator checks parameters. */
function requiredQuery(resources: Record<string, TemplateResource>, method: TemplateResource): string[] {
  const validatorId = refOf(method.Properties?.RequestValidatorId);
  const validator = validatorId ? resources[validatorId] : undefined;
  if (validator?.Properties?.ValidateRequestParameters !== true) return [];
  const params = (method.Properties?.RequestParameters ?? {}) as Json;
  return Object.entries(params)
    .filter(([k, required]) => required === true && k.startsWith('method.request.querystring.'))
    .map(([k]) => k.slice('method.request.querystring.'.length));
}

export function readAssembly(dir: string): Assembly {
  const templates = readTemplates(dir);
  const functions: AssemblyFunction[] = [];
  const routes: Route[] = [];
  let stage = 'prod';
  for (const [stackName, template] of Object.entries(templates)) {
    const resources = template.Resources ?? {};
    for (const r of Object.values(resources)) {
      if (r.Type === 'AWS::ApiGateway::Stage' && typeof r.Properties?.StageName === 'string') {
        stage = r.Properties.StageName;
      }
    }
    const byId = new Map<string, AssemblyFunction>();
    for (const [id, r] of Object.entries(resources)) {
      if (r.Type !== 'AWS::Lambda::Function') continue;
      const fn = readFunction(dir, stackName, id, r);
      if (fn) byId.set(id, fn);
    }
    // An alias points at a version, which points at the function.
    const aliasTarget = new Map<string, { fnId: string; pc: number }>();
    for (const [id, r] of Object.entries(resources)) {
      if (r.Type !== 'AWS::Lambda::Alias') continue;
      const fnId = refOf(r.Properties?.FunctionName);
      const pc = Number(
        ((r.Properties?.ProvisionedConcurrencyConfig as Json | undefined)
          ?.ProvisionedConcurrentExecutions as number) ?? 0,
      );
      if (fnId) aliasTarget.set(id, { fnId, pc });
    }
    const resolved = new Map<string, AssemblyFunction>();
    for (const [id, r] of Object.entries(resources)) {
      if (r.Type !== 'AWS::ApiGateway::Method') continue;
      const integration = (r.Properties?.Integration ?? {}) as Json;
      if (integration.Type !== 'AWS_PROXY') continue;
      const target = integrationTarget(integration.Uri);
      if (!target) throw new AssemblyError(`${stackName}/${id}: cannot read the integration URI`);
      const alias = aliasTarget.get(target);
      const fnId = alias ? alias.fnId : target;
      const base = byId.get(fnId);
      if (!base)
        throw new AssemblyError(`${stackName}/${id}: integration target ${target} is not a bundled function`);
      const fn = resolved.get(fnId) ?? { ...base, provisionedConcurrency: alias?.pc ?? 0 };
      resolved.set(fnId, fn);
      routes.push({
        method: String(r.Properties?.HttpMethod),
        path: resourcePath(resources, refOf(r.Properties?.ResourceId)) || '/',
        function: fn,
        requiredQuery: requiredQuery(resources, r),
      });
    }
    for (const [id, fn] of byId) functions.push(resolved.get(id) ?? fn);
  }
  return { dir, templates, functions, routes, stage };
}
