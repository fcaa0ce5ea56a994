/**
 * Reads a Secrets Manager secret through the AWS Parameters and Secrets Lambda Extension: one
 * HTTP GET to the extension on localhost, which calls Secrets Manager with the function's role
 * and caches the answer. No SDK in the bundle (the Secrets Manager client alone is ~60 KB zipped).
 *
 * AWS documents that the extension answers during the INVOKE phase only, not during INIT, so
 * callers read on the first invocation (once per environment), never at module scope.
 */
import { request } from 'node:http';
import { EnvError, requireEnv } from './env';

/** The extension's default port, used when PARAMETERS_SECRETS_EXTENSION_HTTP_PORT is unset. */
export const EXTENSION_DEFAULT_PORT = 2773;
/**
 * The whole read: the extension's own Secrets Manager call is bounded at 2 s (the stack sets
 * SECRETS_MANAGER_TIMEOUT_MILLIS), plus its start-up and a retry's worth of margin.
 */
export const SECRET_READ_TIMEOUT_MS = 3000;
/** Bodies larger than this are not a GetSecretValue answer for a URL. */
const MAX_BODY_BYTES = 64 * 1024;

export class SecretReadError extends Error {
  constructor(message: string, options?: ErrorOptions) {
    super(message, options);
    this.name = 'SecretReadError';
  }
}

/** Port and token the extension expects; a missing token fails at init, with the variable's name. */
export function extensionSettings(env: NodeJS.ProcessEnv = process.env): { port: number; token: string } {
  const token = requireEnv('AWS_SESSION_TOKEN', env);
  const raw = env.PARAMETERS_SECRETS_EXTENSION_HTTP_PORT;
  const port = raw === undefined || raw.trim() === '' ? EXTENSION_DEFAULT_PORT : Number(raw);
  if (!Number.isInteger(port) || port < 1 || port > 65_535) {
    throw new EnvError(
      `Environment variable PARAMETERS_SECRETS_EXTENSION_HTTP_PORT must be a port, got ${raw}`,
    );
  }
  return { port, token };
}

/** The secret's SecretString (undefined for a binary secret). Never quotes the secret in an error. */
export function readSecretViaExtension(
  secretId: string,
  env: NodeJS.ProcessEnv = process.env,
  timeoutMs = SECRET_READ_TIMEOUT_MS,
): Promise<string | undefined> {
  const { port, token } = extensionSettings(env);
  const where = `the Parameters and Secrets extension on localhost:${port}`;
  return new Promise((resolve, reject) => {
    const req = request(
      {
        host: 'localhost',
        port,
        method: 'GET',
        path: `/secretsmanager/get?secretId=${encodeURIComponent(secretId)}`,
        headers: { 'X-Aws-Parameters-Secrets-Token': token },
        // One request per environment: no agent, so no socket stays open beside Redis's.
        agent: false,
      },
      (res) => {
        const chunks: Buffer[] = [];
        let size = 0;
        res.on('data', (c: Buffer) => {
          size += c.length;
          if (size > MAX_BODY_BYTES) {
            req.destroy(
              new SecretReadError(`${where} sent more than ${MAX_BODY_BYTES} bytes for ${secretId}`),
            );
          } else chunks.push(c);
        });
        res.on('error', reject);
        res.on('end', () => {
          const text = Buffer.concat(chunks).toString('utf8');
          if (res.statusCode !== 200) {
            // An error answer names the failure (AccessDenied, ResourceNotFound), never the value.
            reject(
              new SecretReadError(
                `${where} answered ${res.statusCode} for ${secretId}: ${text.slice(0, 300)}`,
              ),
            );
            return;
          }
          let parsed: { SecretString?: unknown };
          try {
            parsed = JSON.parse(text) as { SecretString?: unknown };
          } catch {
            reject(new SecretReadError(`${where} answered 200 for ${secretId} with a body that is not JSON`));
            return;
          }
          resolve(typeof parsed.SecretString === 'string' ? parsed.SecretString : undefined);
        });
      },
    );
    // A deadline over the whole exchange, not an idle timer: a trickling answer is bounded too.
    const timer = setTimeout(() => {
      req.destroy(new SecretReadError(`${where} did not answer for ${secretId} within ${timeoutMs} ms`));
    }, timeoutMs);
    req.on('close', () => clearTimeout(timer));
    req.on('error', (error) => {
      reject(
        error instanceof SecretReadError
          ? error
          : new SecretReadError(`${where} could not be reached for ${secretId}: ${error.message}`, {
              cause: error,
            }),
      );
    });
    req.end();
  });
}
