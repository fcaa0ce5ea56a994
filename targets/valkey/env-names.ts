/** The variables that tell a valkey function where its cache is (cdk.ts sets them, store.ts reads them). */
export const VALKEY_ENDPOINT_ENV = 'VALKEY_ENDPOINT';
export const VALKEY_PORT_ENV = 'VALKEY_PORT';
/** The serverless cache's name: the IAM token is signed for it. */
export const VALKEY_CACHE_NAME_ENV = 'VALKEY_CACHE_NAME';
/** The ElastiCache user id the functions authenticate as. */
export const VALKEY_USER_ENV = 'VALKEY_USER';
/** The line of the lab's environment file a standard client reads locally: the functions' user, any password. */
export const VALKEY_URL_ENV = 'VALKEY_URL';
