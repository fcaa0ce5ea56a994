/**
 * Registering a target from its own folder: one call (or LAB_TARGET_MODULES) adds it to the
 * vocabulary, the stacks, the local lab and the network model, and nothing else changes when a
 * registration is refused. The lab run with it is throwaway-lab.slow.test.ts.
 */
import { describe, expect, it } from 'vitest';
import { hasTargetCost } from '../../../core/cost-registry';
import { isTarget, labFunctions, TARGETS, targetLabel } from '../../../core/lab-functions';
import { loadPriceFile } from '../../../core/price-file';
import { PROJECT_TARGET_MODULES, TARGET_MODULES_ENV } from '../../../core/target-modules';
import { targetDefinition } from '../../../lib/targets';
import { findProfile, IN_REGION, linkOf, UNIFORM_8MS } from '../../../local/network/profiles';
import { localTarget } from '../../../local/targets';
import { loadTargetModules, registerTarget } from '../../../targets/registry';
import { synthLab } from '../../support/synth';
import { cost as throwawayCost } from './cost';
import { applyRequest } from './engine';
import { target } from './index';

const MODULE = 'test/targets/throwaway/index.ts';
/** The project's own targets, named by their folders in the one list. */
const BUILTINS = PROJECT_TARGET_MODULES.map((m) => m.split('/')[1]);

describe('a target module registered at run time', () => {
  it('is unknown until loaded, then in every registry; loading it again changes nothing', async () => {
    expect(isTarget('throwaway')).toBe(false);
    expect(hasTargetCost('throwaway')).toBe(false);
    expect(() => targetDefinition('throwaway')).toThrow(
      'target throwaway has no CDK definition: register its module',
    );
    expect(() => localTarget('throwaway')).toThrow('target throwaway has no local target');
    expect(() => linkOf(IN_REGION, 'throwaway')).toThrow(
      'network profile in-region has no link for target throwaway',
    );

    expect(await loadTargetModules({ [TARGET_MODULES_ENV]: ` ${MODULE} ` })).toEqual(['throwaway']);
    expect(await loadTargetModules({ [TARGET_MODULES_ENV]: MODULE })).toEqual([]);

    expect(TARGETS).toEqual([...BUILTINS, 'throwaway']);
    expect(targetLabel('throwaway')).toBe('Throwaway');
    expect(targetDefinition('throwaway')).toBe(target.definition);
    expect(localTarget('throwaway')).toBe(target.local);
    // Its own link under every profile; the built-ins keep the profile's.
    expect(linkOf(IN_REGION, 'throwaway')).toBe(target.links.link);
    expect(linkOf(UNIFORM_8MS, 'throwaway')).toBe(target.links.link);
    expect(linkOf(UNIFORM_8MS, 'dynamodb').rttMs).toBe(8);
    expect(findProfile('in-region')?.targets.throwaway).toBeUndefined();

    // Routes and functions come from the vocabulary: its five operations, its one entry.
    const fns = labFunctions(['throwaway'], ['on']);
    expect(fns.map((f) => `${f.method} ${f.path} -> ${f.entry}#${f.handlerExport}`)).toEqual([
      'POST /throwaway/person -> test/targets/throwaway/handler.ts#create',
      'GET /throwaway/person/{govId} -> test/targets/throwaway/handler.ts#get',
      'PUT /throwaway/person/{govId} -> test/targets/throwaway/handler.ts#overwrite',
      'PATCH /throwaway/person/{govId} -> test/targets/throwaway/handler.ts#update',
      'GET /throwaway/person -> test/targets/throwaway/handler.ts#query',
    ]);

    // A second registration of the name, or a bad name, is refused and leaves the lists as they were.
    expect(() => registerTarget(target)).toThrow('target throwaway is already registered');
    expect(() => registerTarget({ ...target, name: 'Throw-away' })).toThrow(
      'target name "Throw-away": lower-case letters and digits',
    );
    // (Without its cost part, whose units are throwaway's and so refused under another name.)
    expect(() =>
      registerTarget({ ...target, name: 'other', info: { label: 'X', baseline: true }, cost: undefined }),
    ).toThrow('a baseline target is already registered');
    expect(TARGETS).toEqual([...BUILTINS, 'throwaway']);
    expect(() => localTarget('other')).toThrow('target other has no local target');

    // Its cost part: its unit priced in the default price file; a module whose part is bad is
    // refused, naming it, before any registry changes.
    expect(loadPriceFile().prices['throwaway.widgetRequests']).toMatchObject({ usd: 50, group: 'database' });
    const bad = { ...throwawayCost, units: { 'x.y': 'y' } };
    expect(() => registerTarget({ ...target, name: 'badcost', cost: bad })).toThrow(
      "target badcost: unit 'x.y' must be 'badcost.<unit>'",
    );
    expect(isTarget('badcost')).toBe(false);
    expect(hasTargetCost('badcost')).toBe(false);
  });

  it('refuses a variable naming a file that is not a target module, by the variable and the file', async () => {
    await expect(
      loadTargetModules({ [TARGET_MODULES_ENV]: 'test/targets/throwaway/engine.ts' }),
    ).rejects.toThrow(/^LAB_TARGET_MODULES: .*engine\.ts exports no `target`/);
    await expect(
      loadTargetModules({ [TARGET_MODULES_ENV]: 'test/targets/no-such/index.ts' }),
    ).rejects.toThrow(/^LAB_TARGET_MODULES: cannot load .*no-such\/index\.ts/);
  });

  it('synthesizes its functions with their operation as handler and no grant beyond their logs', async () => {
    await loadTargetModules({ [TARGET_MODULES_ENV]: MODULE });
    const { api } = synthLab({ targets: 'throwaway' });
    const resources = api.toJSON().Resources as Record<
      string,
      { Type: string; Properties: Record<string, unknown> }
    >;
    const fns = Object.entries(resources).filter(
      ([, r]) =>
        r.Type === 'AWS::Lambda::Function' &&
        String(
          (r.Properties.Environment as { Variables?: Record<string, string> })?.Variables?.LAB_FUNCTION,
        ).startsWith('throwaway-'),
    );
    expect(fns.map(([, r]) => r.Properties.Handler).sort()).toEqual([
      'index.create',
      'index.get',
      'index.overwrite',
      'index.query',
      'index.update',
    ]);
    // The functions' own roles (its VPC's flow log has one of its own).
    const actions = Object.entries(resources)
      .filter(([id, r]) => r.Type === 'AWS::IAM::Policy' && !id.startsWith('ThrowawayVpc'))
      .map(([, r]) => r)
      .flatMap(
        (r) => (r.Properties.PolicyDocument as { Statement: { Action: string | string[] }[] }).Statement,
      )
      .flatMap((s) => [s.Action].flat());
    // The engine is no AWS service: each role writes its own log group and may do nothing else.
    expect([...new Set(actions)].sort()).toEqual(['logs:CreateLogStream', 'logs:PutLogEvents']);
    for (const [, r] of fns) {
      expect(
        (r.Properties.Environment as { Variables: Record<string, string> }).Variables.THROWAWAY_MAP,
      ).toBe('person');
    }
  });

  it('builds its functions with the props its module asks for: in its VPC, its security group, its private subnets', () => {
    const { api } = synthLab({ targets: 'throwaway' });
    const resources = api.toJSON().Resources as Record<
      string,
      { Type: string; Properties: Record<string, unknown> }
    >;
    const idsOf = (type: string, prefix: string) =>
      Object.entries(resources)
        .filter(([id, r]) => r.Type === type && id.startsWith(prefix))
        .map(([id]) => id);
    const [group] = idsOf('AWS::EC2::SecurityGroup', 'ThrowawayVpc');
    const privateSubnets = idsOf('AWS::EC2::Subnet', 'ThrowawayVpcPrivate').sort();
    expect(group).toBeDefined();
    expect(privateSubnets).toHaveLength(2);
    const fns = Object.values(resources).filter(
      (r) =>
        r.Type === 'AWS::Lambda::Function' &&
        String(
          (r.Properties.Environment as { Variables?: Record<string, string> })?.Variables?.LAB_FUNCTION,
        ).startsWith('throwaway-'),
    );
    expect(fns).toHaveLength(5);
    for (const fn of fns) {
      const vpc = fn.Properties.VpcConfig as {
        SecurityGroupIds: { 'Fn::GetAtt': [string, string] }[];
        SubnetIds: { Ref: string }[];
      };
      expect(vpc.SecurityGroupIds).toEqual([{ 'Fn::GetAtt': [group, 'GroupId'] }]);
      expect(vpc.SubnetIds.map((s) => s.Ref).sort()).toEqual(privateSubnets);
    }
    // Lambda attaches the interfaces with the role's VPC access policy.
    const roles = Object.values(resources).filter(
      (r) =>
        r.Type === 'AWS::IAM::Role' && JSON.stringify(r.Properties).includes('Execution role of Throwaway'),
    );
    expect(roles).toHaveLength(5);
    for (const role of roles)
      expect(JSON.stringify(role.Properties.ManagedPolicyArns)).toContain('AWSLambdaVPCAccessExecutionRole');
  });
});

describe('the throwaway engine', () => {
  it('writes once, overwrites only what is there, updates the Address and lists the newest of a type', () => {
    const rows = new Map();
    let clock = 0;
    const next = () => ++clock;
    const person = (GovId: string, GovIdType = 'Passport') => ({
      GovId,
      FirstName: 'A',
      LastName: 'B',
      DOB: '2000-01-01',
      GovIdType,
    });
    expect(applyRequest(rows, next, { op: 'create', person: person('P1') })).toBe('created');
    expect(applyRequest(rows, next, { op: 'create', person: person('P1') })).toBe('exists');
    expect(applyRequest(rows, next, { op: 'overwrite', person: person('P9') })).toBe('missing');
    expect(applyRequest(rows, next, { op: 'create', person: person('P2') })).toBe('created');
    expect(applyRequest(rows, next, { op: 'create', person: person('D1', 'Licence') })).toBe('created');
    expect(applyRequest(rows, next, { op: 'update', govId: 'P1', address: 'Here' })).toMatchObject({
      GovId: 'P1',
      Address: 'Here',
    });
    expect(applyRequest(rows, next, { op: 'update', govId: 'P9', address: 'Here' })).toBeNull();
    expect(applyRequest(rows, next, { op: 'get', govId: 'P9' })).toBeNull();
    // An overwrite is a new creation: P1 becomes the newest Passport.
    expect(applyRequest(rows, next, { op: 'overwrite', person: person('P1') })).toBe('replaced');
    const newest = applyRequest(rows, next, { op: 'query', govIdType: 'Passport', limit: 5 }) as {
      GovId: string;
    }[];
    expect(newest.map((p) => p.GovId)).toEqual(['P1', 'P2']);
  });
});
