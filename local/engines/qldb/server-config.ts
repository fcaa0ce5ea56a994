import type { Server } from 'node:http';
import { createQldbHttpServer } from './http-endpoint';
import type { Journal } from './journal';
import type { CommitRecord } from './ledger';
import { QldbSessionService } from './session-service';

/** What the engine process is started with (JSON on its command line). */
export interface QldbServerConfig {
  readonly port?: number;
  readonly dataDir?: string;
  readonly ledgers?: readonly string[];
  readonly pageSize?: number;
  readonly sessionIdleMs?: number;
  readonly sessionLifetimeMs?: number;
  readonly transactionTimeoutMs?: number;
  /** Close HTTP connections idle this long, s. @default 60 */
  readonly idleTimeoutS?: number;
}

/** The service over the replayed journal, behind the HTTP endpoint (not yet listening). */
export function createQldbEndpoint(
  config: QldbServerConfig,
  journal: Journal | undefined,
  records: readonly CommitRecord[],
  onInternalError: (err: Error) => void,
): Server {
  const service = new QldbSessionService(
    {
      ledgers: config.ledgers,
      pageSize: config.pageSize,
      sessionIdleMs: config.sessionIdleMs,
      sessionLifetimeMs: config.sessionLifetimeMs,
      transactionTimeoutMs: config.transactionTimeoutMs,
      journal,
    },
    records,
  );
  return createQldbHttpServer(service, { onInternalError, idleTimeoutS: config.idleTimeoutS });
}
