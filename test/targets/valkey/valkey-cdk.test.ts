/**
 * The valkey target's CDK half, with the target on: a serverless Valkey cache in the lab's VPC
 * (private subnets), TLS (a serverless cache has no other endpoint), an IAM-authenticated user in
 * a group whose `default` user is off, security groups that let only the functions reach the
 * cache's port, the functions in that VPC, and the least-privilege grant: elasticache:Connect on
 * this cache and this user only. cdk-nag's AwsSolutions pack finds nothing unacknowledged.
 */
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { App, Validations } from 'aws-cdk-lib';
import { Annotations, Match } from 'aws-cdk-lib/assertions';
import { AwsSolutionsChecks } from 'cdk-nag';
import { describe, expect, it } from 'vitest';
import { PROJECT_ROOT } from '../../../core/paths';
import { buildLab } from '../../../lib/app';
import { ACCESS_STRING } from '../../../targets/valkey/access';
import { synthLab } from '../../support/synth';

type Resources = Record<string, { Type: string; Properties: Record<string, unknown>; DependsOn?: string[] }>;

const ofType = (resources: Resources, type: string) =>
  Object.entries(resources).filter(([, r]) => r.Type === type);

describe('the valkey target in the stacks', () => {
  const { data, api } = synthLab({ targets: 'valkey' });
  const dataResources = data.toJSON().Resources as Resources;
  const apiResources = api.toJSON().Resources as Resources;
  const valkeyFns = ofType(apiResources, 'AWS::Lambda::Function').filter(([, r]) =>
    String(
      (r.Properties.Environment as { Variables: Record<string, unknown> }).Variables.LAB_FUNCTION,
    ).startsWith('valkey-'),
  );

  it('makes one serverless Valkey cache in the VPC private subnets, behind its own security group, with the user group', () => {
    data.resourceCountIs('AWS::ElastiCache::ServerlessCache', 1);
    const [[, cache]] = ofType(dataResources, 'AWS::ElastiCache::ServerlessCache');
    expect(cache.Properties).toMatchObject({
      Engine: 'valkey',
      MajorEngineVersion: '8',
      ServerlessCacheName: 'latencylab-data-valkey',
      UserGroupId: 'latencylab-data-users',
      // Bounded: a lab must not be an open tap.
      CacheUsageLimits: { DataStorage: { Maximum: 1, Unit: 'GB' }, ECPUPerSecond: { Maximum: 5000 } },
    });
    // Private subnets only (AWS documents a serverless cache as reachable from inside its VPC only).
    const privateSubnets = ofType(dataResources, 'AWS::EC2::Subnet')
      .filter(([, r]) => r.Properties.MapPublicIpOnLaunch === false)
      .map(([id]) => ({ Ref: id }));
    expect(privateSubnets).toHaveLength(2);
    expect(cache.Properties.SubnetIds).toEqual(privateSubnets);
  });

  it('authenticates the functions as an IAM user whose access string is the local ACL, and switches default off', () => {
    data.hasResourceProperties('AWS::ElastiCache::User', {
      Engine: 'valkey',
      UserId: 'latencylab-data-fns',
      // IAM auth wants the user id and name equal.
      UserName: 'latencylab-data-fns',
      AuthenticationMode: { Type: 'iam' },
      AccessString: ACCESS_STRING,
    });
    data.hasResourceProperties('AWS::ElastiCache::User', {
      UserName: 'default',
      AccessString: Match.stringLikeRegexp('^off '),
    });
    data.hasResourceProperties('AWS::ElastiCache::UserGroup', {
      Engine: 'valkey',
      UserIds: ['latencylab-data-fns', 'latencylab-data-default'],
    });
  });

  it('lets only the functions security group reach the cache, on 6379 only, and the functions reach nothing else', () => {
    const groups = ofType(dataResources, 'AWS::EC2::SecurityGroup');
    const [cacheGroupId] = (
      ofType(dataResources, 'AWS::ElastiCache::ServerlessCache')[0][1].Properties.SecurityGroupIds as {
        'Fn::GetAtt': [string, string];
      }[]
    ).map((g) => g['Fn::GetAtt'][0]);
    const fnGroupId = groups.find(([, r]) =>
      /valkey functions/.test(String(r.Properties.GroupDescription)),
    )?.[0];
    expect(fnGroupId).toBeDefined();
    const ingress = ofType(dataResources, 'AWS::EC2::SecurityGroupIngress').filter(
      ([, r]) =>
        JSON.stringify(r.Properties.GroupId) === JSON.stringify({ 'Fn::GetAtt': [cacheGroupId, 'GroupId'] }),
    );
    expect(ingress.map(([, r]) => r.Properties)).toEqual([
      {
        Description: 'the lab functions',
        FromPort: 6379,
        ToPort: 6379,
        IpProtocol: 'tcp',
        GroupId: { 'Fn::GetAtt': [cacheGroupId, 'GroupId'] },
        SourceSecurityGroupId: { 'Fn::GetAtt': [fnGroupId, 'GroupId'] },
      },
    ]);
    // No inline ingress on the cache group, no open egress on either.
    const byId = Object.fromEntries(groups);
    expect(byId[cacheGroupId].Properties.SecurityGroupIngress).toBeUndefined();
    expect(JSON.stringify(byId[cacheGroupId].Properties.SecurityGroupEgress)).not.toContain('0.0.0.0/0');
    expect(byId[fnGroupId as string].Properties.SecurityGroupEgress).toBeUndefined();
    const egress = ofType(dataResources, 'AWS::EC2::SecurityGroupEgress').filter(
      ([, r]) =>
        JSON.stringify(r.Properties.GroupId) === JSON.stringify({ 'Fn::GetAtt': [fnGroupId, 'GroupId'] }),
    );
    expect(
      egress.map(([, r]) => [
        r.Properties.FromPort,
        r.Properties.ToPort,
        r.Properties.DestinationSecurityGroupId,
      ]),
    ).toEqual([[6379, 6379, { 'Fn::GetAtt': [cacheGroupId, 'GroupId'] }]]);
  });

  it('puts each function in the VPC with the functions group, told the cache, its user and the TLS port', () => {
    expect(valkeyFns.map(([, r]) => r.Properties.Handler).sort()).toEqual([
      'index.create',
      'index.get',
      'index.overwrite',
      'index.query',
      'index.update',
    ]);
    for (const [id, fn] of valkeyFns) {
      const vpc = fn.Properties.VpcConfig as { SubnetIds: unknown[]; SecurityGroupIds: { Ref: string }[] };
      expect(vpc.SubnetIds, id).toHaveLength(2);
      expect(JSON.stringify(vpc.SubnetIds)).toContain('valkeysubnetids');
      expect(vpc.SecurityGroupIds.map((g) => g.Ref)).toEqual([
        expect.stringContaining('valkeyfunctionssecuritygroup'),
      ]);
      expect((fn.Properties.Environment as { Variables: Record<string, unknown> }).Variables).toMatchObject({
        VALKEY_CACHE_NAME: 'latencylab-data-valkey',
        VALKEY_USER: 'latencylab-data-fns',
        VALKEY_ENDPOINT: { Ref: expect.stringContaining('valkeyendpointaddress') },
        VALKEY_PORT: { Ref: expect.stringContaining('valkeyendpointport') },
      });
      // The role's policy (network interfaces included) exists before the function is created.
      expect(
        fn.DependsOn?.some((d) => /RoleDefaultPolicy/.test(d)),
        id,
      ).toBe(true);
    }
  });

  it('grants elasticache:Connect on this cache and this user only, and nothing else beyond logs and network interfaces', () => {
    const statements = ofType(apiResources, 'AWS::IAM::Policy')
      .filter(([id]) => id.startsWith('Valkey'))
      .flatMap(
        ([, r]) =>
          (r.Properties.PolicyDocument as { Statement: { Action: string | string[]; Resource: unknown }[] })
            .Statement,
      );
    expect(statements.length).toBeGreaterThan(0);
    const connect = statements.filter((s) => [s.Action].flat().includes('elasticache:Connect'));
    expect(connect).toHaveLength(valkeyFns.length);
    for (const s of connect) {
      expect(s.Action).toBe('elasticache:Connect');
      const resources = JSON.stringify(s.Resource);
      expect(resources).toContain(':serverlesscache:latencylab-data-valkey"');
      expect(resources).toContain(':user:latencylab-data-fns"');
      expect((s.Resource as unknown[]).length).toBe(2);
    }
    const actions = new Set(statements.flatMap((s) => [s.Action].flat()));
    expect([...actions].sort()).toEqual([
      'ec2:AssignPrivateIpAddresses',
      'ec2:CreateNetworkInterface',
      'ec2:DeleteNetworkInterface',
      'ec2:DescribeNetworkInterfaces',
      'ec2:DescribeSubnets',
      'ec2:UnassignPrivateIpAddresses',
      'elasticache:Connect',
      'logs:CreateLogStream',
      'logs:PutLogEvents',
    ]);
  });

  it('with compute=managed-instances, sets no VpcConfig beside the capacity provider and warns that a deploy cannot reach the cache', () => {
    const lab = synthLab({
      targets: 'valkey',
      compute: 'managed-instances',
      memorySize: '2048',
      managedInstancesTypes: 'm7g.large',
    });
    const fns = ofType(lab.api.toJSON().Resources as Resources, 'AWS::Lambda::Function').filter(
      ([, r]) => r.Properties.CapacityProviderConfig !== undefined,
    );
    expect(fns.length).toBeGreaterThan(0);
    for (const [, fn] of fns) expect(fn.Properties.VpcConfig).toBeUndefined();
    Annotations.fromStack(lab.stacks.api).hasWarning(
      '*',
      Match.stringLikeRegexp('cannot reach it when deployed'),
    );
  });

  it('passes cdk-nag AwsSolutions with nothing unacknowledged', () => {
    const outdir = mkdtempSync(join(tmpdir(), 'lab-valkey-nag-'));
    try {
      const context = JSON.parse(readFileSync(join(PROJECT_ROOT, 'cdk.json'), 'utf8')).context;
      const app = new App({
        outdir,
        builtinCloudFormationValidation: false,
        context: {
          ...context,
          targets: 'dynamodb,valkey',
          keepAlive: 'both',
          tracing: 'true',
          provisionedConcurrency: '2',
          'aws:cdk:bundling-stacks': [],
        },
      });
      buildLab(app);
      Validations.of(app).addPlugins(new AwsSolutionsChecks(app));
      let synthError: unknown;
      try {
        app.synth();
      } catch (e) {
        synthError = e;
      }
      const reportFile = join(outdir, 'validation-report.json');
      if (!existsSync(reportFile)) throw synthError ?? new Error('synth wrote no validation report');
      const report = JSON.parse(readFileSync(reportFile, 'utf8')) as {
        pluginReports: {
          pluginName: string;
          conclusion: string;
          violations: {
            ruleName: string;
            severity: string;
            violatingConstructs: { constructPath: string }[];
          }[];
        }[];
      };
      const nag = report.pluginReports.filter((p) => p.pluginName === 'AwsSolutions');
      if (synthError !== undefined && !nag.some((p) => p.conclusion === 'failure')) throw synthError;
      const findings = nag
        .flatMap((p) => p.violations)
        .flatMap((v) =>
          v.violatingConstructs.map((c) => `${v.severity} ${v.ruleName} at ${c.constructPath}`),
        );
      expect(findings).toEqual([]);
    } finally {
      rmSync(outdir, { recursive: true, force: true });
    }
  }, 120_000);
});
