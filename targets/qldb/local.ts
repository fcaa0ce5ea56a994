/**
 * QLDB locally: an emulation of a service that was shut down on 2025-07-31 (targets/qldb/engine).
 * The ledger is what the template names; its tables and indexes are made by the lab's own
 * custom resource bundle, run as CloudFormation would run it. The journal is in --data (synced
 * per commit) or in the lab's run data (written per commit), so a restart replays it all.
 */
import type { Assembly } from '../../local/assembly/cloud-assembly';
import { httpHealth } from '../../local/engines/health';
import { engineDataDir } from '../../local/run-dir';
import { type LocalTarget, localName, withEngine } from '../../local/targets/types';

const LEDGER = 'AWS::QLDB::Ledger';

interface LedgerProperties {
  readonly Name: string;
  readonly PermissionsMode: string;
  readonly DeletionProtection: boolean;
}

/** The template's ledgers with the properties CreateLedger takes (QLDB's defaults where unset). */
function templateLedgers(assembly: Assembly): LedgerProperties[] {
  return Object.entries(assembly.templates).flatMap(([stack, t]) =>
    Object.entries(t.Resources)
      .filter(([, r]) => r.Type === LEDGER)
      .map(([id, r]) => {
        const p =
          (r as { Properties?: { PermissionsMode?: string; DeletionProtection?: boolean } }).Properties ?? {};
        return {
          Name: localName(stack, id),
          PermissionsMode: p.PermissionsMode ?? 'STANDARD',
          DeletionProtection: p.DeletionProtection ?? true,
        };
      }),
  );
}

/** CreateLedger for each; one the journal already holds answers 409, which is what a restart expects. */
async function createLedgers(endpoint: string, ledgers: readonly LedgerProperties[]): Promise<void> {
  for (const ledger of ledgers) {
    const res = await fetch(`${endpoint}/ledgers`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(ledger),
    });
    if (!res.ok && res.status !== 409) {
      throw new Error(`CreateLedger ${ledger.Name} answered ${res.status}: ${await res.text()}`);
    }
  }
}

export const qldbTarget: LocalTarget = {
  findEngine: () => ({ found: true, source: "the lab's own QLDB Session emulation (targets/qldb/engine)" }),
  async start(opts) {
    const { startQldbEngine } = await import('./engine');
    const { dataDir, durable, removeData } = await engineDataDir(opts, 'qldb');
    const idleTimeoutS = opts.idleTimeoutS;
    // The ledgers that exist are the template's, created through the control plane's CreateLedger
    // as CloudFormation creates an AWS::QLDB::Ledger: StartSession on any other name is refused
    // with BadRequestException, as QLDB refuses a ledger that does not exist.
    const ledgers = templateLedgers(opts.assembly);
    const start = async (port?: number) => {
      const started = await startQldbEngine({
        port,
        dataDir,
        syncJournal: durable,
        idleTimeoutS,
        log: opts.log,
      });
      try {
        await createLedgers(started.endpoint, ledgers);
      } catch (error) {
        await started.stop();
        throw error;
      }
      return started;
    };
    let engine: Awaited<ReturnType<typeof start>>;
    try {
      engine = await start();
    } catch (error) {
      await removeData();
      throw error;
    }
    return withEngine(() => engine, {
      tables: ledgers.map((l) => l.Name),
      description: 'QLDB Session emulation',
      nameOf: (stack, id, type) => (type === LEDGER ? localName(stack, id) : undefined),
      // The driver (QLDB Session) and the control plane answer on the same port.
      functionEnv: (model) => ({
        AWS_ENDPOINT_URL_QLDB_SESSION: model.url,
        AWS_ENDPOINT_URL_QLDB: model.url,
      }),
      clientEnv: (model) => ({
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
      // ListLedgers: the control plane answers on the engine's one event loop.
      health: (signal) => httpHealth(`${engine.endpoint}/ledgers`, signal),
      // The journal replays ledgers, tables and documents: nothing to make again.
      async restart() {
        await engine.stop();
        engine = await start(engine.port);
      },
      async stop() {
        await engine.stop();
        await removeData();
      },
    });
  },
};
