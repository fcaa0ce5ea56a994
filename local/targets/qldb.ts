/**
 * QLDB locally: an emulation of a service that was shut down on 2025-07-31 (local/engines/qldb).
 * The ledger is what the template names; its tables and indexes are made by the lab's own
 * custom resource bundle, run as CloudFormation would run it.
 */
import { join } from 'node:path';
import { type LocalTarget, localName, localNamesOf, withEngine } from './types';

const LEDGER = 'AWS::QLDB::Ledger';

export const qldbTarget: LocalTarget = {
  async start(opts) {
    const { startQldbEngine } = await import('../engines/qldb');
    const dataDir = opts.dataDir && join(opts.dataDir, 'qldb');
    const idleTimeoutS = opts.idleTimeoutS;
    // The ledgers that exist are the template's: StartSession on any other name is refused with
    // BadRequestException, as QLDB refuses a ledger that does not exist.
    const ledgers = localNamesOf(opts.assembly, LEDGER);
    let engine = await startQldbEngine({ dataDir, idleTimeoutS, ledgers, log: opts.log });
    return withEngine(() => engine, {
      tables: ledgers,
      description: 'QLDB Session emulation',
      nameOf: (stack, id, type) => (type === LEDGER ? localName(stack, id) : undefined),
      // The driver (QLDB Session) and the control plane answer on the same port.
      functionEnv: (model) => ({
        AWS_ENDPOINT_URL_QLDB_SESSION: model.url,
        AWS_ENDPOINT_URL_QLDB: model.url,
      }),
      async prepare(model, runCustomResource) {
        const created = await runCustomResource('Custom::QldbTables', {
          AWS_ENDPOINT_URL_QLDB_SESSION: model.url,
          AWS_ENDPOINT_URL_QLDB: model.url,
        });
        opts.log(`QLDB tables and indexes created by the custom resource bundle (${created.length} ledger)`);
      },
      async restart() {
        await engine.stop();
        engine = await startQldbEngine({ port: engine.port, dataDir, idleTimeoutS, ledgers, log: opts.log });
      },
      stop: () => engine.stop(),
    });
  },
};
