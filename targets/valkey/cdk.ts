/**
 * ElastiCache Serverless (Valkey): a serverless cache in the lab's VPC (LabVpc, private subnets
 * of two AZs), TLS always (a serverless cache has no plain-text endpoint), an ElastiCache user
 * with IAM authentication in a user group whose `default` user is switched off, and two security
 * groups: the functions' (egress to the cache's port only) and the cache's (ingress from the
 * functions' group on that port only). Each function runs in the VPC with the functions' group
 * and may `elasticache:Connect` to this cache as this user, nothing else.
 */
import { Annotations, ArnFormat, CfnOutput, Fn, Stack } from 'aws-cdk-lib';
import * as ec2 from 'aws-cdk-lib/aws-ec2';
import * as elasticache from 'aws-cdk-lib/aws-elasticache';
import * as iam from 'aws-cdk-lib/aws-iam';
import type { Construct } from 'constructs';
import { placeFunctionInVpc } from '../../lib/constructs/function-vpc';
import { type HandedValue, handOff } from '../../lib/constructs/hand-off';
import { LabVpc } from '../../lib/constructs/lab-vpc';
import type { TargetDefinition } from '../../lib/targets/types';
import { ACCESS_STRING, valkeyUserId } from './access';
import { VALKEY_CACHE_NAME_ENV, VALKEY_ENDPOINT_ENV, VALKEY_PORT_ENV, VALKEY_USER_ENV } from './env-names';

/** The serverless cache's primary port (reads and writes; 6380 serves replica reads only). */
export const VALKEY_PORT = 6379;
/** Valkey's major version on the cache. */
export const VALKEY_MAJOR_VERSION = '8';
/**
 * Bounds on what the cache may grow to: a lab in someone's account must not be an open tap.
 * ElastiCache throttles requests beyond the ECPU rate and refuses writes beyond the storage.
 */
export const VALKEY_LIMITS = { dataStorageGb: 1, ecpuPerSecond: 5000 } as const;

/** The serverless cache's name, from the data stack's name (names are unique in an account's region). */
export function valkeyCacheName(stackName: string): string {
  return valkeyUserId(stackName).replace(/-fns$/, '-valkey');
}

export const valkeyTarget: TargetDefinition = {
  createData(stack, { config, removalPolicy }) {
    const cacheName = valkeyCacheName(stack.stackName);
    const userId = valkeyUserId(stack.stackName);
    const network = new LabVpc(stack, 'ValkeyNetwork', {
      logRetentionDays: config.logRetentionDays,
      removalPolicy,
    });
    const functions = new ec2.SecurityGroup(stack, 'ValkeyFunctions', {
      vpc: network.vpc,
      description: 'Latency lab valkey functions: egress to the cache port only',
      allowAllOutbound: false,
    });
    const cacheGroup = new ec2.SecurityGroup(stack, 'ValkeyCacheAccess', {
      vpc: network.vpc,
      description: 'Latency lab valkey cache: ingress from the functions on its port only',
      allowAllOutbound: false,
    });
    cacheGroup.addIngressRule(functions, ec2.Port.tcp(VALKEY_PORT), 'the lab functions');
    functions.addEgressRule(cacheGroup, ec2.Port.tcp(VALKEY_PORT), 'the valkey cache');

    const user = new elasticache.CfnUser(stack, 'ValkeyUser', {
      engine: 'valkey',
      userId,
      // IAM authentication wants the user id and the user name equal.
      userName: userId,
      accessString: ACCESS_STRING,
      authenticationMode: { Type: 'iam' },
    });
    // A user group must hold a user named `default`; this one is switched off and may run nothing.
    const defaultUser = new elasticache.CfnUser(stack, 'ValkeyDefaultUser', {
      engine: 'valkey',
      userId: `${userId.replace(/-fns$/, '')}-default`,
      userName: 'default',
      accessString: 'off -@all',
      authenticationMode: { Type: 'no-password-required' },
    });
    const group = new elasticache.CfnUserGroup(stack, 'ValkeyUserGroup', {
      engine: 'valkey',
      userGroupId: `${userId.replace(/-fns$/, '')}-users`,
      userIds: [user.userId, defaultUser.userId],
    });
    group.addResourceDependency(user);
    group.addResourceDependency(defaultUser);
    const cache = new elasticache.CfnServerlessCache(stack, 'ValkeyCache', {
      engine: 'valkey',
      serverlessCacheName: cacheName,
      description: 'Latency lab: ElastiCache Serverless (Valkey)',
      majorEngineVersion: VALKEY_MAJOR_VERSION,
      subnetIds: network.vpc.privateSubnets.map((s) => s.subnetId),
      securityGroupIds: [cacheGroup.securityGroupId],
      userGroupId: group.userGroupId,
      cacheUsageLimits: {
        dataStorage: { maximum: VALKEY_LIMITS.dataStorageGb, unit: 'GB' },
        ecpuPerSecond: { maximum: VALKEY_LIMITS.ecpuPerSecond },
      },
    });
    cache.addResourceDependency(group);
    cache.applyRemovalPolicy(removalPolicy);

    new CfnOutput(stack, 'ValkeyCacheName', { value: cacheName });
    new CfnOutput(stack, 'ValkeyEndpoint', { value: cache.attrEndpointAddress });
    // Read by the API stack through SSM parameters, not exports (constructs/hand-off.ts).
    const handed: Record<string, HandedValue> = {
      address: handOff(stack, 'valkey/endpoint-address', cache.attrEndpointAddress),
      port: handOff(stack, 'valkey/endpoint-port', cache.attrEndpointPort),
      subnets: handOff(
        stack,
        'valkey/subnet-ids',
        Fn.join(
          ',',
          network.vpc.privateSubnets.map((s) => s.subnetId),
        ),
      ),
      group: handOff(stack, 'valkey/functions-security-group', functions.securityGroupId),
    };
    const subnetCount = network.vpc.privateSubnets.length;
    const arn = (scope: Construct, resource: string, name: string) =>
      Stack.of(scope).formatArn({
        service: 'elasticache',
        resource,
        resourceName: name,
        arnFormat: ArnFormat.COLON_RESOURCE_NAME,
      });
    return {
      bind(fn) {
        fn.addEnvironment(VALKEY_ENDPOINT_ENV, handed.address(fn));
        fn.addEnvironment(VALKEY_PORT_ENV, handed.port(fn));
        fn.addEnvironment(VALKEY_CACHE_NAME_ENV, cacheName);
        fn.addEnvironment(VALKEY_USER_ENV, userId);
        if (config.managedInstances === undefined) {
          placeFunctionInVpc(fn, {
            subnetIds: Fn.split(',', handed.subnets(fn), subnetCount),
            securityGroupIds: [handed.group(fn)],
          });
        } else {
          // On Managed Instances a function runs in its capacity provider's VPC, which is not the
          // cache's (README.md, "What differs from AWS"): the local lab runs it, a deploy cannot reach it.
          Annotations.of(fn).addWarningV2(
            'lab:valkey-managed-instances',
            "valkey with compute=managed-instances: the functions run in the capacity provider's VPC, not the cache's, and cannot reach it when deployed",
          );
        }
        // Every operation connects as the user; what it may run is the user's access string.
        fn.addToRolePolicy(
          new iam.PolicyStatement({
            actions: ['elasticache:Connect'],
            resources: [arn(fn, 'serverlesscache', cacheName), arn(fn, 'user', userId)],
          }),
        );
      },
    };
  },
};
