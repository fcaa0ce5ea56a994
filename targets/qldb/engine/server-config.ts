import type { Server } from 'node:http';
import { createQldbHttpServer, type QldbHttpEndpointOptions } from './http-endpoint';
import type { Journal } from './journal';
import type { CommitRecord } from './ledger';
import { QldbSessionService } from './session-service';

/** What the engine process is started with (JSON on its command line). */
export interface QldbServerConfig {
  /** Port on 127.0.0.1; 0 or absent picks a free one. */
  readonly port?: number;
  /** Keep the journal in this folder (created if missing); absent keeps everything in memory. */
  readonly dataDir?: string;
  /**
   * fdatasync each commit before answering it (survives the machine stopping); false only writes
   * it, which survives the process being killed (the page cache keeps it). @default true
   */
  readonly syncJournal?: boolean;
  /** Ledgers that exist from the start (fixtures); others are made with CreateLedger. @default none */
  readonly ledgers?: readonly string[];
  /** How long a ledger stays CREATING or DELETING, ms. @default 0 */
  readonly ledgerTransitionMs?: number;
  /** Active ledgers CreateLedger allows. @default 5 (QLDB's default quota) */
  readonly activeLedgerLimit?: number;
  /** Values per result page. @default 200 */
  readonly pageSize?: number;
  /** A session not in a transaction expires after this long idle. @default 60 000 (QLDB) */
  readonly sessionIdleMs?: number;
  /** A session expires this long after it started. @default 900 000 (QLDB: 13-17 min) */
  readonly sessionLifetimeMs?: number;
  /** A transaction must commit within this. @default 30 000 (QLDB) */
  readonly transactionTimeoutMs?: number;
  /** How long one statement may evaluate before it is refused, ms. @default 1 000 */
  readonly statementBudgetMs?: number;
  /** The HTTP endpoint closes connections idle this long, s. @default 60 */
  readonly idleTimeoutS?: number;
}

/** The service over the replayed journal, behind the HTTP endpoint (not yet listening). */
export function createQldbEndpoint(
  config: QldbServerConfig,
  journal: Journal | undefined,
  records: readonly CommitRecord[],
  handlers: Pick<QldbHttpEndpointOptions, 'onCommitFailure' | 'onUnexpectedError'>,
): Server {
  const service = new QldbSessionService(
    {
      ledgers: config.ledgers,
      ledgerTransitionMs: config.ledgerTransitionMs,
      activeLedgerLimit: config.activeLedgerLimit,
      pageSize: config.pageSize,
      sessionIdleMs: config.sessionIdleMs,
      sessionLifetimeMs: config.sessionLifetimeMs,
      transactionTimeoutMs: config.transactionTimeoutMs,
      statementBudgetMs: config.statementBudgetMs,
      journal,
    },
    records,
  );
  return createQldbHttpServer(service, { ...handlers, idleTimeoutS: config.idleTimeoutS });
}
