/**
 * Aurora DSQL's part of the cost model. Its client records raw facts per response (transactions,
 * compute seconds, bytes read, rows and bytes written: the dsql.* raw keys below); the meter turns
 * them into DPUs by the documented per-transaction formulas, with the metering rules and the
 * prices per region in prices.json.
 */
import type { TargetCost } from '../../core/cost-registry';
import type { BilledQuantity } from '../../core/timing.mjs';
import prices from './prices.json' with { type: 'json' };

type Rules = Readonly<Record<string, number>>;

/** What one DSQL transaction did, for the documented per-transaction DPU formulas. */
export interface DsqlTransaction {
  /** Query processing time, s (locally: the engine's measured statement time). */
  readonly computeSeconds: number;
  /** Bytes read from storage (every scanned row, base table and indexes). */
  readonly bytesRead: number;
  /** Size of each row written (base table and secondary indexes). */
  readonly rowsWrittenBytes: readonly number[];
}

export interface DsqlDpu {
  readonly compute: number;
  readonly read: number;
  readonly write: number;
  readonly total: number;
}

/**
 * DPUs of one transaction: ComputeDPU = compute seconds; WriteDPU = max(sum of max(row, 128 B),
 * 1024 B) x factor when it wrote; ReadDPU = max(bytes read, 2048 B) x factor when it read
 * (a write reads the primary key to check uniqueness, so it reads too).
 */
export function dsqlTransactionDpu(t: DsqlTransaction, m: Rules): DsqlDpu {
  const compute = t.computeSeconds * m.computeDpuPerSecond;
  const written = t.rowsWrittenBytes.reduce((s, b) => s + Math.max(b, m.rowMinBytes), 0);
  const write =
    t.rowsWrittenBytes.length === 0 ? 0 : Math.max(written, m.writeTransactionMinBytes) * m.writeDpuPerByte;
  const reads = t.bytesRead > 0 || t.rowsWrittenBytes.length > 0;
  const read = reads ? Math.max(t.bytesRead, m.readTransactionMinBytes) * m.readDpuPerByte : 0;
  return { compute, read, write, total: compute + read + write };
}

/** The raw keys the DSQL client records (lambda/shared/dsql-store.ts). */
export const DSQL_RAW = [
  'dsql.transactions',
  'dsql.computeSeconds',
  'dsql.bytesRead',
  'dsql.rowsWritten',
  'dsql.bytesWritten',
] as const;

/**
 * One response's DPUs; a response that retried after a conflict ran several transactions, each
 * with its minimums.
 */
export function dsqlDpuOf(raw: ReadonlyMap<string, number>, m: Rules): number {
  const tx = raw.get('dsql.transactions') ?? 0;
  if (tx === 0) return 0;
  const rows = raw.get('dsql.rowsWritten') ?? 0;
  const written = Math.max(raw.get('dsql.bytesWritten') ?? 0, rows * m.rowMinBytes);
  const one = dsqlTransactionDpu(
    {
      computeSeconds: raw.get('dsql.computeSeconds') ?? 0,
      bytesRead: raw.get('dsql.bytesRead') ?? 0,
      rowsWrittenBytes: rows > 0 ? [written] : [],
    },
    m,
  );
  // Minimums apply per transaction: the extra attempts add at least their floors.
  const floors = dsqlTransactionDpu(
    { computeSeconds: 0, bytesRead: 0, rowsWrittenBytes: rows > 0 ? [0] : [] },
    m,
  );
  return one.total + (tx - 1) * (floors.read + floors.write);
}

export const cost: TargetCost = {
  units: { 'dsql.dpu': 'DSQL DPUs (modeled)' },
  meteringRules: [
    'computeDpuPerSecond',
    'writeDpuPerByte',
    'readDpuPerByte',
    'rowMinBytes',
    'writeTransactionMinBytes',
    'readTransactionMinBytes',
  ],
  meter: {
    raw: DSQL_RAW,
    bill: (raw, rules): BilledQuantity[] => [
      { key: 'dsql.dpu', quantity: dsqlDpuOf(raw, rules), basis: 'modeled' },
    ],
  },
  prices,
  pricesFile: 'targets/dsql/prices.json',
};
