/**
 * QLDB's control plane (its REST API) over the local ledgers: CreateLedger, DescribeLedger,
 * ListLedgers, UpdateLedger and DeleteLedger, each ledger's state (CREATING, ACTIVE, DELETING)
 * and its deletion protection, persisted in the journal beside the commits and replayed from it.
 * The Session API (session-service.ts) asks it for a ledger by name and hears when one starts
 * being deleted, so that the sessions open on it expire.
 */
import { committing } from './errors';
import type { Journal } from './journal';
import { type CommitRecord, Ledger, type LedgerControl, QLDB_QUOTAS, randomId } from './ledger';

export interface QldbControlPlaneOptions {
  /**
   * Ledgers that exist from the start (ACTIVE, deletion protection off), as fixtures. Others are
   * made with CreateLedger; a ledger the journal holds exists. @default none
   */
  readonly ledgers?: readonly string[];
  /** How long a ledger stays CREATING (and DELETING), ms. @default 0 */
  readonly ledgerTransitionMs?: number;
  /** Active ledgers CreateLedger allows (QLDB's default quota per account and Region; adjustable there too). @default 5 */
  readonly activeLedgerLimit?: number;
  /** Persist ledger changes here (the commits' journal); absent keeps everything in memory. */
  readonly journal?: Journal;
  /** @default Date.now */
  readonly now?: () => number;
}

/** Told when a ledger starts being deleted: the sessions open on it end with `reason`. */
export type OnLedgerDeleting = (ledger: Ledger, reason: string, now: number) => void;

export type LedgerState = 'CREATING' | 'ACTIVE' | 'DELETING';

interface LedgerEntry {
  readonly ledger: Ledger;
  state: LedgerState;
  /** When CREATING or DELETING ends. */
  until: number;
  readonly createdAt: number;
  deletionProtection: boolean;
  readonly permissionsMode: string;
}

export interface CreateLedgerRequest {
  readonly Name?: string;
  readonly PermissionsMode?: string;
  readonly DeletionProtection?: boolean;
}

export interface LedgerDescription {
  readonly Name: string;
  readonly State: LedgerState;
  readonly CreationDateTime: number;
  readonly PermissionsMode: string;
  readonly DeletionProtection: boolean;
  readonly EncryptionDescription: { readonly KmsKeyArn: string; readonly EncryptionStatus: string };
}

/** A control-plane error: its code, the message, and the resource it names. */
export class ControlPlaneError extends Error {
  constructor(
    readonly code:
      | 'InvalidParameterException'
      | 'ResourceAlreadyExistsException'
      | 'ResourceNotFoundException'
      | 'ResourceInUseException'
      | 'ResourcePreconditionNotMetException'
      | 'LimitExceededException',
    message: string,
    readonly resourceName?: string,
  ) {
    super(message);
    this.name = code;
  }
}

const LEDGER_NAME = /^[A-Za-z0-9](?:[A-Za-z0-9-]{0,30}[A-Za-z0-9])?$/;

function templateLedger(name: string, now: number): LedgerEntry {
  return {
    ledger: new Ledger(name),
    state: 'ACTIVE',
    until: 0,
    createdAt: now,
    deletionProtection: false,
    permissionsMode: 'STANDARD',
  };
}

export class QldbControlPlane {
  readonly #ledgers = new Map<string, LedgerEntry>();
  readonly #transitionMs: number;
  readonly #ledgerLimit: number;
  readonly #journal: Journal | undefined;
  readonly #now: () => number;
  readonly #onDeleting: OnLedgerDeleting;

  /** `records` are the journal's commits: ledger changes are replayed, data goes to its ledger. */
  constructor(
    options: QldbControlPlaneOptions = {},
    records: readonly CommitRecord[] = [],
    onDeleting: OnLedgerDeleting = () => {},
  ) {
    this.#now = options.now ?? Date.now;
    this.#transitionMs = options.ledgerTransitionMs ?? 0;
    this.#ledgerLimit = options.activeLedgerLimit ?? QLDB_QUOTAS.activeLedgers;
    this.#journal = options.journal;
    this.#onDeleting = onDeleting;
    for (const name of options.ledgers ?? []) this.#ledgers.set(name, templateLedger(name, this.#now()));
    for (const record of records) {
      if (record.control) {
        this.#replayControl(record);
        continue;
      }
      // A ledger the journal holds exists, configured or not (a stack renamed since it was made).
      let entry = this.#ledgers.get(record.ledger);
      if (!entry) {
        entry = templateLedger(record.ledger, Date.parse(record.committedAt));
        this.#ledgers.set(record.ledger, entry);
      }
      entry.ledger.apply(record);
    }
  }

  /** The state of the ledger of that name, as it was last seen (no transition applied), if it exists. */
  stateOf(name: string): LedgerState | undefined {
    return this.#ledgers.get(name)?.state;
  }

  /** The ledger of that name, when it exists and is ACTIVE. */
  ledger(name: string): Ledger | undefined {
    const entry = this.#ledgers.get(name);
    if (!entry) return undefined;
    this.#advance(entry);
    return entry.state === 'ACTIVE' ? entry.ledger : undefined;
  }

  ledgerNames(): string[] {
    return [...this.#ledgers.keys()];
  }

  /** CreateLedger: CREATING, ACTIVE after the creation delay; persisted in the journal. */
  async createLedger(request: CreateLedgerRequest): Promise<LedgerDescription> {
    const name = request.Name ?? '';
    // "Ledger names ... 1-32 characters, letters, digits and hyphens, not all digits, no leading or
    // trailing hyphen, no two hyphens in a row" (CreateLedger, Name).
    if (!LEDGER_NAME.test(name) || /^[0-9]+$/.test(name) || name.includes('--')) {
      throw new ControlPlaneError(
        'InvalidParameterException',
        `1 validation error detected: Value '${name}' at 'name' failed to satisfy constraint: Member must satisfy regular expression pattern: (?!^.*--)(?!^[0-9]+$)(?!^-)(?!.*-$)^[A-Za-z0-9-]+$`,
      );
    }
    const mode = request.PermissionsMode;
    if (mode !== 'ALLOW_ALL' && mode !== 'STANDARD') {
      throw new ControlPlaneError(
        'InvalidParameterException',
        `1 validation error detected: Value '${mode ?? 'null'}' at 'permissionsMode' failed to satisfy constraint: Member must satisfy enum value set: [ALLOW_ALL, STANDARD]`,
      );
    }
    if (this.#ledgers.has(name)) {
      throw new ControlPlaneError(
        'ResourceAlreadyExistsException',
        `Ledger with name ${name} already exists`,
        name,
      );
    }
    const active = [...this.#ledgers.values()].filter((l) => l.state !== 'DELETING').length;
    if (active >= this.#ledgerLimit) {
      throw new ControlPlaneError(
        'LimitExceededException',
        `Exceeded the limit of ${this.#ledgerLimit} active ledgers for this account in this Region`,
      );
    }
    const now = this.#now();
    const entry: LedgerEntry = {
      ledger: new Ledger(name),
      state: 'CREATING',
      until: now + this.#transitionMs,
      createdAt: now,
      deletionProtection: request.DeletionProtection ?? true,
      permissionsMode: mode,
    };
    this.#ledgers.set(name, entry);
    await this.#persist(
      name,
      { op: 'createLedger', deletionProtection: entry.deletionProtection, permissionsMode: mode },
      now,
    );
    const described = this.#describe(entry);
    this.#advance(entry);
    return described;
  }

  describeLedger(name: string): LedgerDescription {
    return this.#describe(this.#entry(name));
  }

  listLedgers(): { Name: string; State: LedgerState; CreationDateTime: number }[] {
    return [...this.#ledgers.values()].flatMap((entry) => {
      this.#advance(entry);
      if (!this.#ledgers.has(entry.ledger.name)) return [];
      return [
        { Name: entry.ledger.name, State: entry.state, CreationDateTime: Math.floor(entry.createdAt / 1000) },
      ];
    });
  }

  /** UpdateLedger: deletion protection (KmsKey is accepted and not modeled). */
  async updateLedger(name: string, request: { DeletionProtection?: boolean }): Promise<LedgerDescription> {
    const entry = this.#entry(name);
    if (request.DeletionProtection !== undefined) {
      entry.deletionProtection = request.DeletionProtection;
      await this.#persist(
        name,
        { op: 'updateLedger', deletionProtection: entry.deletionProtection },
        this.#now(),
      );
    }
    return this.#describe(entry);
  }

  /** DeleteLedger: refused while deletion protection is on; DELETING, then gone with its data. */
  async deleteLedger(name: string): Promise<void> {
    const entry = this.#entry(name);
    if (entry.deletionProtection) {
      throw new ControlPlaneError(
        'ResourcePreconditionNotMetException',
        `Preventing deletion of ledger ${name} because deletion protection is enabled. Disable deletion protection with UpdateLedger first.`,
        name,
      );
    }
    if (entry.state !== 'ACTIVE') {
      throw new ControlPlaneError('ResourceInUseException', `Ledger ${name} is ${entry.state}`, name);
    }
    const now = this.#now();
    entry.state = 'DELETING';
    entry.until = now + this.#transitionMs;
    this.#onDeleting(entry.ledger, `Ledger ${name} is being deleted`, now);
    await this.#persist(name, { op: 'deleteLedger' }, now);
    this.#advance(entry);
  }

  #entry(name: string): LedgerEntry {
    const entry = this.#ledgers.get(name);
    if (entry) this.#advance(entry);
    const live = this.#ledgers.get(name);
    if (!live)
      throw new ControlPlaneError('ResourceNotFoundException', `Ledger ${name} does not exist`, name);
    return live;
  }

  /** Moves a ledger past CREATING or DELETING once its transition time has passed. */
  #advance(entry: LedgerEntry): void {
    if (entry.state === 'ACTIVE' || this.#now() < entry.until) return;
    if (entry.state === 'CREATING') entry.state = 'ACTIVE';
    else this.#ledgers.delete(entry.ledger.name);
  }

  #describe(entry: LedgerEntry): LedgerDescription {
    return {
      Name: entry.ledger.name,
      State: entry.state,
      CreationDateTime: Math.floor(entry.createdAt / 1000),
      PermissionsMode: entry.permissionsMode,
      DeletionProtection: entry.deletionProtection,
      EncryptionDescription: { KmsKeyArn: 'AWS_OWNED_KMS_KEY', EncryptionStatus: 'ENABLED' },
    };
  }

  async #persist(ledger: string, control: LedgerControl, now: number): Promise<void> {
    const journal = this.#journal;
    if (!journal) return;
    await committing(() =>
      journal.append({
        ledger,
        transactionId: randomId(),
        committedAt: new Date(now).toISOString(),
        tables: [],
        indexes: [],
        documents: [],
        control,
      }),
    );
  }

  #replayControl(record: CommitRecord): void {
    const control = record.control;
    if (!control) return;
    const at = Date.parse(record.committedAt);
    if (control.op === 'createLedger') {
      this.#ledgers.set(record.ledger, {
        ledger: new Ledger(record.ledger),
        state: 'ACTIVE',
        until: 0,
        createdAt: at,
        deletionProtection: control.deletionProtection ?? true,
        permissionsMode: control.permissionsMode ?? 'STANDARD',
      });
    } else if (control.op === 'deleteLedger') this.#ledgers.delete(record.ledger);
    else {
      const entry = this.#ledgers.get(record.ledger);
      if (entry && control.deletionProtection !== undefined)
        entry.deletionProtection = control.deletionProtection;
    }
  }
}
