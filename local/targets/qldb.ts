/**
 * QLDB locally: an emulation of a service that was shut down on 2025-07-31 (local/engines/qldb).
 * The ledger is what the template names; its tables and indexes are made by the lab's own
 * custom resource bundle, run as CloudFormation would run it.
 */
import { join } from 'node:path';
import type { LocalTarget } from './types';
import { localName } from './types';

export const qldbTarget: LocalTarget = {
  async start(opts) {
    const { startQldbEngine } = await import('../engines/qldb');
    const dataDir = opts.dataDir && join(opts.dataDir, 'qldb');
    const idleTimeoutS = opts.idleTimeoutS;
    let engine = await startQldbEngine({ dataDir, idleTimeoutS, log: opts.log });
    const tables = Object.entries(opts.assembly.templates).flatMap(([stack, t]) =>
      Object.entries(t.Resources)
        .filter(([, r]) => r.Type === 'AWS::QLDB::Ledger')
        .map(([id]) => localName(stack, id)),
    );
    return {
      tables,
      get description() {
        return 'QLDB Session emulation';
      },
      get endpoint() {
        return engine.endpoint;
      },
      get upstreamPort() {
        return engine.port;
      },
      get pid() {
        return engine.pid;
      },
      nameOf: (stack, id, type) => (type === 'AWS::QLDB::Ledger' ? localName(stack, id) : undefined),
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
        engine = await startQldbEngine({ port: engine.port, dataDir, idleTimeoutS, log: opts.log });
      },
      stop: () => engine.stop(),
    };
  },
};
