/** What `redisSecretArn` is in the local synth: the local account is all zeros. Light: the module's index names it. */
export const LOCAL_REDIS_SECRET_ARN =
  'arn:aws:secretsmanager:us-east-1:000000000000:secret:lab-local-redis-AbCdEf';
