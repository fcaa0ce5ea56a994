/** The watchdog's request to a local DynamoDB engine (local/engine-watchdog.ts). */
import { LOCAL_REGION } from '../../local/engines/types';

/** DynamoDB's ListTables (dynalite and DynamoDB Local check the headers' shape, not the signature). */
export async function dynamoDbHealth(endpoint: string, signal: AbortSignal): Promise<void> {
  const amzDate = new Date().toISOString().replace(/[-:]|\.\d{3}/g, '');
  const day = amzDate.slice(0, 8);
  const res = await fetch(endpoint, {
    method: 'POST',
    headers: {
      'Content-Type': 'application/x-amz-json-1.0',
      'X-Amz-Target': 'DynamoDB_20120810.ListTables',
      'X-Amz-Date': amzDate,
      Authorization: `AWS4-HMAC-SHA256 Credential=local/${day}/${LOCAL_REGION}/dynamodb/aws4_request, SignedHeaders=host, Signature=0`,
    },
    body: '{"Limit":1}',
    signal,
  });
  await res.arrayBuffer();
  if (!res.ok) throw new Error(`ListTables answered ${res.status}`);
}
