/**
 * Custom resource (custom_resources.Provider onEvent) that creates QLDB tables and
 * indexes. Create and Update are idempotent: what already exists is left alone.
 * Delete is a no-op: QLDB has no DROP for indexes, and the ledger's own deletion removes
 * the tables. The physical id depends only on the ledger, so an Update never replaces.
 */

import type { QldbDriver } from 'amazon-qldb-driver-nodejs';
import type { CloudFormationCustomResourceEvent } from 'aws-lambda';
import type { dom } from 'ion-js';
import { requireEnv } from '../../lambda/shared/env';
import { createLabHttp } from '../../lambda/shared/http-client';
import { assertTableName, createQldbDriver } from './store';

export const CUSTOM_RESOURCE_REQUEST_TIMEOUT_MS = 20_000;

export interface IndexSpec {
  readonly Table: string;
  readonly Attribute: string;
}

export interface QldbTablesProperties {
  readonly LedgerName: string;
  readonly Tables: readonly string[];
  readonly Indexes: readonly IndexSpec[];
}

export interface ProviderResponse {
  readonly PhysicalResourceId: string;
  /** `<Table>TableId` for each table: lets IAM policies name the table's ARN exactly. */
  readonly Data?: Record<string, string>;
}

export function physicalId(ledgerName: string): string {
  return `qldb-tables:${ledgerName}`;
}

export function readProperties(raw: Record<string, unknown>): QldbTablesProperties {
  const ledger = raw.LedgerName;
  if (typeof ledger !== 'string' || ledger === '') throw new Error('LedgerName property is required');
  const tables = raw.Tables;
  if (!Array.isArray(tables) || tables.some((t) => typeof t !== 'string')) {
    throw new Error('Tables property must be a list of table names');
  }
  const indexes = raw.Indexes ?? [];
  if (!Array.isArray(indexes)) throw new Error('Indexes property must be a list of {Table, Attribute}');
  const specs = indexes.map((i: unknown) => {
    const { Table, Attribute } = (i ?? {}) as Record<string, unknown>;
    if (typeof Table !== 'string' || typeof Attribute !== 'string') {
      throw new Error(`Index ${JSON.stringify(i)} must have string Table and Attribute`);
    }
    return { Table: assertTableName(Table), Attribute: assertTableName(Attribute) };
  });
  for (const s of specs) {
    if (!tables.includes(s.Table))
      throw new Error(`Index on ${s.Table}.${s.Attribute} names a table not in Tables`);
  }
  // A duplicate would be created twice; QLDB refuses the second and the Create fails half done.
  const keys = [...tables, ...specs.map((s) => `${s.Table}.${s.Attribute}`)];
  const repeated = keys.find((k, i) => keys.indexOf(k) !== i);
  if (repeated !== undefined) throw new Error(`${repeated} is listed more than once`);
  return { LedgerName: ledger, Tables: (tables as string[]).map(assertTableName), Indexes: specs };
}

interface ExistingTable {
  readonly tableId: string;
  readonly indexedAttributes: Set<string>;
}

async function readExisting(driver: QldbDriver): Promise<Map<string, ExistingTable>> {
  const rows = await driver.executeLambda(async (txn) =>
    (
      await txn.execute(
        "SELECT name, tableId, indexes FROM information_schema.user_tables WHERE status = 'ACTIVE'",
      )
    ).getResultList(),
  );
  const out = new Map<string, ExistingTable>();
  for (const row of rows) {
    const name = row.get('name')?.stringValue();
    const tableId = row.get('tableId')?.stringValue();
    if (!name || !tableId) continue;
    const indexed = new Set<string>();
    for (const idx of (row.get('indexes')?.elements() ?? []) as dom.Value[]) {
      // QLDB reports an index expression as "[GovId]".
      const expr = idx.get('expr')?.stringValue() ?? '';
      indexed.add(expr.replace(/^\[|\]$/g, '').replace(/^'|'$/g, ''));
    }
    out.set(name, { tableId, indexedAttributes: indexed });
  }
  return out;
}

/** Creates what is missing and returns every table's id. */
export async function ensureTables(
  driver: QldbDriver,
  props: QldbTablesProperties,
): Promise<Record<string, string>> {
  let existing = await readExisting(driver);
  for (const table of props.Tables) {
    if (!existing.has(table)) {
      console.log(`creating table ${table}`);
      await driver.executeLambda((txn) => txn.execute(`CREATE TABLE ${table}`));
    }
  }
  for (const { Table, Attribute } of props.Indexes) {
    if (!existing.get(Table)?.indexedAttributes.has(Attribute)) {
      console.log(`creating index on ${Table} (${Attribute})`);
      await driver.executeLambda((txn) => txn.execute(`CREATE INDEX ON ${Table} (${Attribute})`));
    }
  }
  existing = await readExisting(driver);
  const data: Record<string, string> = {};
  for (const table of props.Tables) {
    const found = existing.get(table);
    if (!found) throw new Error(`table ${table} is still missing after CREATE TABLE`);
    data[`${table}TableId`] = found.tableId;
  }
  return data;
}

export async function onEvent(
  event: CloudFormationCustomResourceEvent,
  driverFor: (ledgerName: string) => QldbDriver,
): Promise<ProviderResponse> {
  // Delete first: properties that an older version accepted must never block a stack deletion.
  if (event.RequestType === 'Delete') return { PhysicalResourceId: event.PhysicalResourceId };
  const props = readProperties(event.ResourceProperties as Record<string, unknown>);
  const id = physicalId(props.LedgerName);
  const driver = driverFor(props.LedgerName);
  try {
    return { PhysicalResourceId: id, Data: await ensureTables(driver, props) };
  } finally {
    driver.close();
  }
}

export const handler = (event: CloudFormationCustomResourceEvent): Promise<ProviderResponse> => {
  // Keep-alive is irrelevant for a handful of one-off statements; the timeouts still apply.
  // Statements on a new ledger can take seconds; the function's 90 s leave room for 20 s each.
  const http = createLabHttp('on', CUSTOM_RESOURCE_REQUEST_TIMEOUT_MS);
  const region = requireEnv('AWS_REGION');
  return onEvent(event, (ledger) => createQldbDriver(ledger, http.options, { region }));
};
