/**
 * The flags every fast-tier test that starts the local lab passes (fuzz, redis-lab, http-fuzz,
 * api-gateway conformance, memory-model): global-setup.ts synthesizes this one assembly once
 * per run, and no test pays a synth of its own. Redis is in it because the fuzz and redis-lab
 * tests need its routes; the others only use DynamoDB's.
 */
export const LAB_TEST_CONTEXT: Readonly<Record<string, string>> = { targets: 'dynamodb,redis' };
