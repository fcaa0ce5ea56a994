/**
 * Redis: the user's own database (Upstash, or any TLS Redis), whose URL sits in a Secrets
 * Manager secret the user created. CloudFormation cannot create an Upstash database, and the
 * lab never creates or deletes the user's: this target makes no resource at all. Each function
 * gets the secret's ARN, read permission on exactly that secret, and the AWS Parameters and
 * Secrets Lambda Extension, which reads it for the function (docs/targets.md: Redis).
 */
import { Duration } from 'aws-cdk-lib';
import * as iam from 'aws-cdk-lib/aws-iam';
import * as lambda from 'aws-cdk-lib/aws-lambda';
import type { TargetDefinition } from '../../lib/targets/types';

/** Where the functions find the secret's ARN (targets/redis/redis-handler.ts reads it). */
export const REDIS_SECRET_ENV = 'REDIS_SECRET_ARN';

/**
 * The extension, by version: CDK maps the stack's region to AWS's layer ARN. The function
 * reads the secret once per environment, so the extension's cache only needs that one entry;
 * its own call to Secrets Manager is bounded inside the handlers' 5 s database deadline.
 */
export const redisParamsAndSecrets = () =>
  lambda.ParamsAndSecretsLayerVersion.fromVersion(lambda.ParamsAndSecretsVersions.V1_0_103, {
    cacheSize: 1,
    secretsManagerTimeout: Duration.seconds(2),
    logLevel: lambda.ParamsAndSecretsLogLevel.WARN,
  });

export const redisTarget: TargetDefinition = {
  createData(_stack, { config }) {
    const secretArn = config.targetContext.redisSecretArn ?? '';
    // parseConfig refuses `targets=...redis` without the ARN; this guards callers that skip it.
    if (secretArn === '') throw new Error('redis target: redisSecretArn is empty');
    return {
      // Each function binds its own layer version.
      functionProps: () => ({ paramsAndSecrets: redisParamsAndSecrets() }),
      bind(fn) {
        fn.addEnvironment(REDIS_SECRET_ENV, secretArn);
        // No PREWARM_CONNECTION even with prewarmConnection: the URL comes from the Parameters
        // and Secrets extension, which AWS documents as not callable during INIT.
        // Both operations only read the URL: GetSecretValue on this one secret, nothing else.
        fn.addToRolePolicy(
          new iam.PolicyStatement({ actions: ['secretsmanager:GetSecretValue'], resources: [secretArn] }),
        );
        // With the account's default key (aws/secretsmanager) no kms:Decrypt grant is needed;
        // a secret under a customer managed key would also need that key's grant.
      },
    };
  },
};
