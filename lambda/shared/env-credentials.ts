/**
 * Replaces @aws-sdk/credential-provider-node in the bundles (esbuild alias, see
 * PerfFunction). Lambda always hands a function its role's credentials in environment
 * variables, so the rest of the default chain (SSO, ini files, IMDS, STS clients) is
 * dead weight: about 90 KB minified, a quarter of a DynamoDB bundle, parsed at every
 * cold start.
 */
import { fromEnv } from '@aws-sdk/credential-provider-env';

export const defaultProvider: typeof fromEnv = (init) => fromEnv(init);
