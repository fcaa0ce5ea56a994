/**
 * A second deploy with other targets, played as CloudFormation would play it: `cdk deploy`
 * updates the stacks one at a time in dependency order (data before API), and each update
 * must leave every stack's cross-stack references whole. CloudFormation refuses an update that
 * removes an export another stack still imports, or that imports an export no stack has:
 * https://docs.aws.amazon.com/AWSCloudFormation/latest/UserGuide/using-cfn-stack-exports.html
 * ("You can't delete a stack if another stack references one of its outputs", "you can't modify
 * or remove an output value that is referenced by another stack"). A parameter of type
 * AWS::SSM::Parameter::Value<String> is read when its stack is updated, so it must exist then:
 * https://docs.aws.amazon.com/AWSCloudFormation/latest/UserGuide/cloudformation-supplied-parameter-types.html
 * A function's compute type is fixed when it is created: its capacity provider configuration
 * "needs to be specified during the first function deployment. It can't be added or removed after
 * the function resource has been created" (AWS SAM, AWS::Serverless::Function CapacityProviderConfig:
 * https://docs.aws.amazon.com/serverless-application-model/latest/developerguide/sam-property-function-capacityproviderconfig.html),
 * so an update that adds it to a live function, or removes it, is refused; a new function resource is not.
 */
import { App, CfnOutput, CfnWaitConditionHandle, Fn, Stack } from 'aws-cdk-lib';
import { describe, expect, it } from 'vitest';
import { RICH_FLAGS, synthLab } from '../support/synth';

type Json = Record<string, unknown>;

interface SynthedStack {
  readonly name: string;
  readonly template: Json;
  readonly dependsOn: readonly string[];
}

function stacksOf(stacks: readonly Stack[]): SynthedStack[] {
  const app = stacks[0].node.root as App;
  const assembly = app.synth();
  return stacks.map((s) => ({
    name: s.stackName,
    template: assembly.getStackByName(s.stackName).template as Json,
    dependsOn: s.dependencies.map((d) => d.stackName),
  }));
}

function walk(v: unknown, visit: (o: Json) => void): void {
  if (Array.isArray(v)) for (const x of v) walk(x, visit);
  else if (typeof v === 'object' && v !== null) {
    visit(v as Json);
    for (const x of Object.values(v)) walk(x, visit);
  }
}

const importsOf = (template: Json): string[] => {
  const out: string[] = [];
  walk(template, (o) => {
    if (typeof o['Fn::ImportValue'] === 'string') out.push(o['Fn::ImportValue']);
  });
  return out;
};

const exportsOf = (template: Json): string[] =>
  Object.values((template.Outputs ?? {}) as Record<string, { Export?: { Name?: unknown } }>)
    .map((o) => o.Export?.Name)
    .filter((n): n is string => typeof n === 'string');

/** SSM parameters the template reads as parameters; the CDK bootstrap's own are not the lab's. */
const ssmReadsOf = (template: Json): string[] =>
  Object.values((template.Parameters ?? {}) as Record<string, { Type?: string; Default?: unknown }>)
    .filter((p) => p.Type?.startsWith('AWS::SSM::Parameter::Value') && typeof p.Default === 'string')
    .map((p) => p.Default as string)
    .filter((name) => !name.startsWith('/cdk-bootstrap/'));

const ssmWritesOf = (template: Json): string[] =>
  Object.values((template.Resources ?? {}) as Record<string, { Type: string; Properties?: Json }>)
    .filter((r) => r.Type === 'AWS::SSM::Parameter' && typeof r.Properties?.Name === 'string')
    .map((r) => r.Properties?.Name as string);

/** The stacks of the new synth in the order cdk deploy updates them: every dependency first. */
function deployOrder(stacks: readonly SynthedStack[]): SynthedStack[] {
  const done = new Set<string>();
  const out: SynthedStack[] = [];
  const visit = (s: SynthedStack): void => {
    if (done.has(s.name)) return;
    done.add(s.name);
    for (const d of s.dependsOn) {
      const dep = stacks.find((x) => x.name === d);
      if (dep) visit(dep);
    }
    out.push(s);
  };
  for (const s of stacks) visit(s);
  return out;
}

/**
 * Deploys `second` over `first`, one stack at a time; returns every update CloudFormation
 * would refuse, with why. Stacks of `first` that `second` lacks stay deployed (cdk deploy
 * deletes no stack).
 */
function playDeploy(first: readonly SynthedStack[], second: readonly SynthedStack[]): string[] {
  const live = new Map(first.map((s) => [s.name, s.template]));
  const refused: string[] = [];
  for (const next of deployOrder(second)) {
    const after = new Map(live).set(next.name, next.template);
    const exportedBy = new Map<string, string>();
    for (const [name, t] of after) for (const e of exportsOf(t)) exportedBy.set(e, name);
    // Removing an export that another live stack imports.
    for (const removed of exportsOf(live.get(next.name) ?? {})) {
      if (exportedBy.has(removed)) continue;
      for (const [name, t] of after) {
        if (name !== next.name && importsOf(t).includes(removed)) {
          refused.push(`${next.name}: cannot drop export ${removed}, still imported by ${name}`);
        }
      }
    }
    // Importing an export, or reading an SSM parameter, that no live stack provides.
    for (const i of importsOf(next.template)) {
      if (!exportedBy.has(i)) refused.push(`${next.name}: imports ${i}, which no stack exports`);
    }
    const written = new Set([...after.values()].flatMap(ssmWritesOf));
    for (const p of ssmReadsOf(next.template)) {
      if (!written.has(p)) refused.push(`${next.name}: reads SSM parameter ${p}, which no stack makes`);
    }
    // A live function that gains or loses its capacity provider configuration in place.
    const before = functionsOf(live.get(next.name) ?? {});
    for (const [id, onInstances] of functionsOf(next.template)) {
      const was = before.get(id);
      if (was !== undefined && was !== onInstances) {
        refused.push(
          `${next.name}: function ${id} cannot ${onInstances ? 'gain' : 'lose'} its capacity provider configuration`,
        );
      }
    }
    live.set(next.name, next.template);
  }
  return refused;
}

/** Each function of a template, and whether it runs on a capacity provider. */
const functionsOf = (template: Json): Map<string, boolean> =>
  new Map(
    Object.entries((template.Resources ?? {}) as Record<string, { Type: string; Properties?: Json }>)
      .filter(([, r]) => r.Type === 'AWS::Lambda::Function')
      .map(([id, r]) => [id, r.Properties?.CapacityProviderConfig !== undefined]),
  );

const labStacks = (flags: Record<string, string>): SynthedStack[] => {
  const { stacks } = synthLab(flags);
  return stacksOf([stacks.data, stacks.api, ...(stacks.powerTuning ? [stacks.powerTuning] : [])]);
};

describe('a second deploy with other targets', () => {
  const both = labStacks({ targets: 'dynamodb,dsql', keepAlive: 'both' });
  const dynamodbOnly = labStacks({ targets: 'dynamodb', keepAlive: 'both' });

  it('drops a target cleanly: no export the live API stack imports is removed under it', () => {
    expect(playDeploy(both, dynamodbOnly)).toEqual([]);
    // Not merely allowed: the data stack takes the target's parameters with it.
    const data = dynamodbOnly.find((s) => s.name === 'LatencyLab-Data');
    expect(ssmWritesOf(data?.template ?? {}).filter((n) => n.includes('/dsql/'))).toEqual([]);
    expect(ssmWritesOf(both[0].template).filter((n) => n.includes('/dsql/')).length).toBeGreaterThan(0);
  });

  it('adds a target back cleanly: what the API stack reads exists before it is updated', () => {
    expect(playDeploy(dynamodbOnly, both)).toEqual([]);
  });

  it('goes from every target to one and back, provisioned concurrency and Power Tuning on', () => {
    const rich = labStacks({ ...RICH_FLAGS, powerTuning: 'true' });
    const poor = labStacks({ targets: 'dynamodb', powerTuning: 'true', provisionedConcurrency: '2' });
    expect(playDeploy(rich, poor)).toEqual([]);
    expect(playDeploy(poor, rich)).toEqual([]);
    // No stack of the lab exports or imports anything: every hand-off is a parameter.
    for (const s of [...rich, ...poor]) {
      expect(importsOf(s.template), s.name).toEqual([]);
      expect(exportsOf(s.template), s.name).toEqual([]);
    }
  });

  it('switches compute mode both ways: every function is replaced, none gains or loses a capacity provider in place', () => {
    const standard = labStacks({ targets: 'dynamodb,dsql', keepAlive: 'both', powerTuning: 'true' });
    const onInstances = labStacks({
      targets: 'dynamodb,dsql',
      keepAlive: 'both',
      powerTuning: 'true',
      compute: 'managed-instances',
      memorySize: '2048',
    });
    expect(playDeploy(standard, onInstances)).toEqual([]);
    expect(playDeploy(onInstances, standard)).toEqual([]);
    // Not merely allowed: the API stack's functions are all on the capacity provider, and all new.
    const api = (stacks: SynthedStack[]) =>
      functionsOf(stacks.find((s) => s.name === 'LatencyLab-Api')?.template ?? {});
    const labFns = (stacks: SynthedStack[]) => [...api(stacks)].filter(([id]) => !id.startsWith('AWS'));
    expect(labFns(onInstances).length).toBeGreaterThan(0);
    expect(labFns(onInstances).every(([, on]) => on)).toBe(true);
    expect(labFns(onInstances).filter(([id]) => api(standard).has(id))).toEqual([]);
  });

  it('catches a function that would gain or lose its capacity provider in place (the check can fail)', () => {
    const fnStack = (onInstances: boolean): SynthedStack[] => [
      {
        name: 'Fn',
        dependsOn: [],
        template: {
          Resources: {
            Handler: {
              Type: 'AWS::Lambda::Function',
              Properties: onInstances
                ? { CapacityProviderConfig: { LambdaManagedInstancesCapacityProviderConfig: {} } }
                : {},
            },
          },
        },
      },
    ];
    expect(playDeploy(fnStack(false), fnStack(true))).toEqual([
      'Fn: function Handler cannot gain its capacity provider configuration',
    ]);
    expect(playDeploy(fnStack(true), fnStack(false))).toEqual([
      'Fn: function Handler cannot lose its capacity provider configuration',
    ]);
  });

  it('catches what exports would do (the check can fail): a dropped export still imported', () => {
    const pair = (withValue: boolean): SynthedStack[] => {
      // CDK's CloudFormation validation: seconds per synth, and not what this case checks.
      const app = new App({ builtinCloudFormationValidation: false });
      const producer = new Stack(app, 'Producer');
      const consumer = new Stack(app, 'Consumer');
      consumer.addStackDependency(producer);
      for (const s of [producer, consumer]) new CfnWaitConditionHandle(s, 'Placeholder');
      if (withValue) {
        new CfnOutput(producer, 'Out', { value: 'x', exportName: 'lab-x' });
        new CfnOutput(consumer, 'In', { value: Fn.importValue('lab-x') });
      } else new CfnOutput(consumer, 'In', { value: 'y' });
      new CfnOutput(producer, 'Keep', { value: 'k' });
      return stacksOf([producer, consumer]);
    };
    expect(playDeploy(pair(true), pair(false))).toEqual([
      'Producer: cannot drop export lab-x, still imported by Consumer',
    ]);
  });
});
