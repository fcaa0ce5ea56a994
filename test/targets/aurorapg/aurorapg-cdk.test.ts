/**
 * The aurorapg target's stacks (targets/aurorapg/cdk.ts), in both modes: the cluster as the
 * Aurora guide asks for it (serverless v2 writer, IAM authentication, TLS forced), least
 * privilege (rds-db:connect for the one database user, on this cluster or this proxy), the
 * functions in the VPC behind a group only the database admits, the refusal of a proxy with a
 * minimum of 0 ACUs, and cdk-nag's AwsSolutions pack with nothing unacknowledged.
 * Sources: https://docs.aws.amazon.com/AmazonRDS/latest/AuroraUserGuide/aurora-serverless-v2-auto-pause.html,
 * https://docs.aws.amazon.com/AmazonRDS/latest/AuroraUserGuide/UsingWithRDS.IAMDBAuth.IAMPolicy.html
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { App, Validations } from 'aws-cdk-lib';
import { Match, type Template } from 'aws-cdk-lib/assertions';
import { AwsSolutionsChecks } from 'cdk-nag';
import { describe, expect, it } from 'vitest';
import { PROJECT_ROOT } from '../../../core/paths';
import { buildLab } from '../../../lib/app';
import { ConfigError } from '../../../lib/config';
import { synthLab } from '../../support/synth';

const DIRECT = { targets: 'aurorapg' };
const PROXY = { targets: 'aurorapg', auroraPgMode: 'proxy' };

type Resources = Record<string, { Type: string; Properties: Record<string, unknown> }>;
const resources = (t: Template) => t.toJSON().Resources as Resources;
const ofType = (t: Template, type: string) => Object.values(resources(t)).filter((r) => r.Type === type);

/** Every IAM action granted with its resources, as JSON, across a template's policies. */
function grants(t: Template): { action: string; resource: string }[] {
  return ofType(t, 'AWS::IAM::Policy').flatMap((p) =>
    (
      p.Properties.PolicyDocument as { Statement: { Action: string | string[]; Resource: unknown }[] }
    ).Statement.flatMap((s) =>
      [s.Action].flat().map((action) => ({ action, resource: JSON.stringify(s.Resource) })),
    ),
  );
}

function nagFindings(flags: Record<string, string>): string[] {
  const outdir = mkdtempSync(join(tmpdir(), 'lab-nag-aurora-'));
  try {
    const context = JSON.parse(readFileSync(join(PROJECT_ROOT, 'cdk.json'), 'utf8')).context;
    const app = new App({
      outdir,
      builtinCloudFormationValidation: false,
      context: { ...context, ...flags, 'aws:cdk:bundling-stacks': [] },
    });
    buildLab(app);
    Validations.of(app).addPlugins(new AwsSolutionsChecks(app));
    let failure: unknown;
    try {
      app.synth();
    } catch (e) {
      failure = e;
    }
    const report = JSON.parse(readFileSync(join(outdir, 'validation-report.json'), 'utf8')) as {
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
    if (failure !== undefined && !nag.some((p) => p.conclusion === 'failure')) throw failure;
    return nag
      .flatMap((p) => p.violations)
      .flatMap((v) => v.violatingConstructs.map((c) => `${v.severity} ${v.ruleName} at ${c.constructPath}`));
  } finally {
    rmSync(outdir, { recursive: true, force: true });
  }
}

describe('aurorapg, direct (minimum 0 ACUs: auto-pause)', () => {
  const { data, api } = synthLab(DIRECT);

  it('is one serverless v2 writer of Aurora PostgreSQL 16 that scales to 0 and pauses after 300 s, IAM auth on, storage encrypted', () => {
    data.hasResourceProperties('AWS::RDS::DBCluster', {
      Engine: 'aurora-postgresql',
      EngineVersion: Match.stringLikeRegexp('^16\\.'),
      EnableIAMDatabaseAuthentication: true,
      StorageEncrypted: true,
      // Scaling to zero: a minimum of 0 ACUs; SecondsUntilAutoPause's default (auto-pause page).
      ServerlessV2ScalingConfiguration: { MinCapacity: 0, MaxCapacity: 1, SecondsUntilAutoPause: 300 },
    });
    data.hasResourceProperties('AWS::RDS::DBInstance', {
      DBInstanceClass: 'db.serverless',
      PubliclyAccessible: false,
    });
    data.hasResourceProperties('AWS::RDS::DBClusterParameterGroup', { Parameters: { 'rds.force_ssl': '1' } });
    expect(ofType(data, 'AWS::RDS::DBProxy')).toHaveLength(0);
  });

  it('lets each function rds-db:connect as lab_app on this cluster only, and nothing else of RDS', () => {
    const rdsGrants = grants(api).filter((g) => g.action.startsWith('rds'));
    expect(rdsGrants.length).toBeGreaterThan(0);
    for (const g of rdsGrants) {
      expect(g.action).toBe('rds-db:connect');
      expect(g.resource).toMatch(/dbuser:/);
      expect(g.resource).toMatch(/\/lab_app"/);
      expect(g.resource).not.toContain('*');
    }
    // The master secret: only the schema resource reads it, in the data stack.
    expect(grants(api).some((g) => g.action.startsWith('secretsmanager'))).toBe(false);
  });

  it('puts every aurorapg function in the VPC behind its own group, with the RDS CAs and time for a resume', () => {
    const fns = ofType(api, 'AWS::Lambda::Function').filter((f) =>
      String(
        (f.Properties.Environment as { Variables: Record<string, unknown> }).Variables.LAB_FUNCTION,
      ).startsWith('aurorapg-'),
    );
    expect(fns.length).toBeGreaterThanOrEqual(5);
    for (const f of fns) {
      const vpc = f.Properties.VpcConfig as { SubnetIds: unknown[]; SecurityGroupIds: unknown[] };
      // The data stack's two private subnets, read through its hand-off parameter.
      expect(vpc.SubnetIds).toHaveLength(2);
      expect(JSON.stringify(vpc.SubnetIds)).toContain('Fn::Split');
      expect(vpc.SecurityGroupIds).toHaveLength(1);
      const vars = (f.Properties.Environment as { Variables: Record<string, unknown> }).Variables;
      expect(vars.AURORA_PG_USER).toBe('lab_app');
      expect(vars.NODE_EXTRA_CA_CERTS).toBe('/var/runtime/ca-cert.pem');
      // Above the store's 25 s deadline, under API Gateway's 29 s.
      expect(f.Properties.Timeout).toBe(28);
    }
  });

  it('admits PostgreSQL into the database group from the functions and the schema resource only', () => {
    const ingress = ofType(data, 'AWS::EC2::SecurityGroupIngress');
    expect(ingress.length).toBe(2);
    for (const i of ingress) {
      expect(i.Properties).toMatchObject({ IpProtocol: 'tcp', FromPort: 5432, ToPort: 5432 });
      expect(i.Properties.CidrIp).toBeUndefined();
      expect(i.Properties.SourceSecurityGroupId).toBeDefined();
    }
  });

  it('makes the schema with a custom resource that reads the cluster secret and names the user', () => {
    data.hasResourceProperties('Custom::AuroraPgSchema', {
      User: 'lab_app',
      SecretArn: { Ref: Match.anyValue() },
    });
  });
});

describe('aurorapg, proxy', () => {
  const { data, api } = synthLab(PROXY);

  it('fronts the cluster with RDS Proxy: IAM end to end, TLS required, minimum 0.5 ACUs, no auto-pause', () => {
    data.hasResourceProperties('AWS::RDS::DBProxy', {
      EngineFamily: 'POSTGRESQL',
      RequireTLS: true,
      DefaultAuthScheme: 'IAM_AUTH',
    });
    data.hasResourceProperties('AWS::RDS::DBCluster', {
      ServerlessV2ScalingConfiguration: { MinCapacity: 0.5, MaxCapacity: 1 },
    });
    const scaling = ofType(data, 'AWS::RDS::DBCluster')[0].Properties
      .ServerlessV2ScalingConfiguration as object;
    expect(scaling).not.toHaveProperty('SecondsUntilAutoPause');
  });

  it('lets the functions rds-db:connect as lab_app on the proxy (its prx- id), not on the cluster', () => {
    const rdsGrants = grants(api).filter((g) => g.action.startsWith('rds'));
    expect(rdsGrants.length).toBeGreaterThan(0);
    for (const g of rdsGrants) {
      expect(g.action).toBe('rds-db:connect');
      expect(g.resource).toMatch(/\/lab_app"/);
    }
    // The proxy's role logs in to the cluster as that user, with IAM.
    const proxyGrants = grants(data).filter((g) => g.action === 'rds-db:connect');
    expect(proxyGrants).toHaveLength(1);
    expect(proxyGrants[0].resource).toContain('ClusterResourceId');
  });

  it('refuses a proxy with a minimum of 0 ACUs, naming the flag and the reason', () => {
    expect(() => synthLab({ ...PROXY, auroraPgMinAcu: '0' })).toThrowError(ConfigError);
    expect(() => synthLab({ ...PROXY, auroraPgMinAcu: '0' })).toThrowError(
      /auroraPgMinAcu="0": expected at least 0\.5 with auroraPgMode=proxy.*aurora-serverless-v2-auto-pause/,
    );
  });
});

describe('aurorapg under cdk-nag AwsSolutions', () => {
  it('has no unacknowledged finding in direct mode', () => {
    expect(nagFindings(DIRECT)).toEqual([]);
  }, 120_000);

  it('has none in proxy mode either', () => {
    expect(nagFindings(PROXY)).toEqual([]);
  }, 120_000);
});
