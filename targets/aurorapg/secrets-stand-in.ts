/**
 * Secrets Manager's GetSecretValue for the one secret the local cluster has (its master user's,
 * as RDS writes it: username, password, host, port, dbname), so the schema custom resource runs
 * the same code locally as in the cloud: AWS_ENDPOINT_URL_SECRETS_MANAGER points the SDK here.
 * The request's signature is not checked (the lab's own key signs it); an unknown id gets
 * Secrets Manager's ResourceNotFoundException.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface SecretsStandIn {
  readonly url: string;
  close(): Promise<void>;
}

export async function startSecretsStandIn(
  secrets: (id: string) => string | undefined,
): Promise<SecretsStandIn> {
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const answer = (status: number, body: unknown) => {
        res.writeHead(status, { 'content-type': 'application/x-amz-json-1.1' });
        res.end(JSON.stringify(body));
      };
      if (req.headers['x-amz-target'] !== 'secretsmanager.GetSecretValue')
        return answer(400, {
          __type: 'UnknownOperationException',
          message: 'only GetSecretValue is served locally',
        });
      let id = '';
      try {
        id = String(
          (JSON.parse(Buffer.concat(chunks).toString() || '{}') as { SecretId?: unknown }).SecretId ?? '',
        );
      } catch {
        return answer(400, { __type: 'SerializationException', message: 'the body is not JSON' });
      }
      const value = secrets(id);
      if (value === undefined)
        return answer(400, {
          __type: 'ResourceNotFoundException',
          message: "Secrets Manager can't find the specified secret.",
        });
      answer(200, {
        ARN: id,
        Name: id.replace(/^.*:secret:/, '').replace(/-[A-Za-z0-9]{6}$/, ''),
        VersionId: '00000000-0000-0000-0000-000000000001',
        SecretString: value,
        VersionStages: ['AWSCURRENT'],
        CreatedDate: 1_767_225_600,
      });
    });
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', resolve);
  });
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
