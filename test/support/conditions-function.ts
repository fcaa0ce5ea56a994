/**
 * A DynamoDB get function as a deployed one builds itself: its store from its environment
 * (KEEP_ALIVE, LAB_TLS_MAX_VERSION, the endpoint) in a process of its own, so Node reads
 * NODE_EXTRA_CA_CERTS at start as in Lambda. argv[2]: how many gets, one after the other.
 * Prints one JSON line: each response's status and whether its call opened a connection.
 */

import { makeGetHandler } from '../../lambda/shared/handlers';
import { dynamoDbStoreFromEnv } from '../../targets/dynamodb/store';
import { bodyOf, getEvent } from './events';

const calls = Number(process.argv[2] ?? '3');
const get = makeGetHandler(dynamoDbStoreFromEnv(), 'dynamodb-get');
const out: { status: number; newConnection: boolean }[] = [];
for (let i = 0; i < calls; i++) {
  const r = await get(getEvent(`COND-${i}`));
  out.push({ status: r.statusCode, newConnection: bodyOf(r).timing.newConnection });
}
process.stdout.write(`${JSON.stringify(out)}\n`);
