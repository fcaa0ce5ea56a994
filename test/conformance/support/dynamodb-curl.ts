/**
 * One DynamoDB request as a user would send it: signed by curl itself (`--aws-sigv4`), the body
 * sent verbatim. The answer's status and JSON body, and how long it took.
 */
import { runClient } from './clients';

export interface DynamoDbAnswer {
  readonly status: number;
  readonly body: Record<string, unknown>;
  readonly ms: number;
}

export async function curlDynamoDb(
  endpoint: string,
  operation: string,
  body: unknown,
  opts: { raw?: string; curlArgs?: readonly string[] } = {},
): Promise<DynamoDbAnswer> {
  const started = performance.now();
  const r = await runClient(
    'curl',
    [
      '-s',
      '--max-time',
      '30',
      '--aws-sigv4',
      'aws:amz:us-east-1:dynamodb',
      '--user',
      'local:local',
      '-H',
      'content-type: application/x-amz-json-1.0',
      '-H',
      `x-amz-target: DynamoDB_20120810.${operation}`,
      '--data-binary',
      opts.raw ?? JSON.stringify(body),
      '-w',
      '\n%{http_code}',
      ...(opts.curlArgs ?? []),
      endpoint,
    ],
    { timeoutMs: 45_000 },
  );
  const ms = performance.now() - started;
  const at = r.stdout.lastIndexOf('\n');
  return { status: Number(r.stdout.slice(at + 1)), body: JSON.parse(r.stdout.slice(0, at) || '{}'), ms };
}
