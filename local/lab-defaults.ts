/**
 * The local lab's defaults and its one caller, apart from lab.ts so that a CLI can print its
 * help and check its options without loading the engines, the host or the SDK.
 */
export { DEFAULT_RTT_MS } from './network/network-model';

export const DEFAULT_PORT = 3100;
export const DEFAULT_MAX_ENVIRONMENTS = 10;
/** Servers close connections idle longer than this, as DynamoDB did in the provisioned-concurrency article. */
export const DEFAULT_IDLE_TIMEOUT_S = 60;

/**
 * The session token every local function carries, as Lambda gives every function one; the
 * Parameters and Secrets extension stand-in refuses a read without it, as the real one does.
 * Not a secret.
 */
export const LOCAL_SESSION_TOKEN = 'lab-local-session-token';

/**
 * The one principal the local API accepts (IAM authorization, as deployed). Not a secret:
 * it only opens the local lab on 127.0.0.1, and keeps anonymous requests out as AWS would.
 */
export const LOCAL_CALLER = {
  accessKeyId: 'LABLOCALCALLER',
  secretAccessKey: 'lab-local-only',
  region: 'us-east-1',
} as const;

/** What the Artillery processor needs to sign requests for the local lab (see lab-processor.mjs). */
export function localSigningEnv(): Record<string, string> {
  return {
    LAB_SIGV4_REGION: LOCAL_CALLER.region,
    LAB_SIGV4_ACCESS_KEY_ID: LOCAL_CALLER.accessKeyId,
    LAB_SIGV4_SECRET_ACCESS_KEY: LOCAL_CALLER.secretAccessKey,
  };
}
