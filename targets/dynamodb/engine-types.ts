/** The local DynamoDB engines the lab runs (engine.ts starts them), the first its default. */
export const ENGINE_KINDS = ['dynalite', 'dynamodb-local'] as const;
export type EngineKind = (typeof ENGINE_KINDS)[number];

export interface StartEngineOptions {
  readonly kind: EngineKind;
  /** Port on 127.0.0.1; 0 or absent picks a free one. */
  readonly port?: number;
  /** Persist tables to this folder (created if missing); absent keeps them in memory. */
  readonly dataDir?: string;
  /** Receives the engine's stdout/stderr lines and progress lines, each prefixed with the kind. */
  readonly log?: (line: string) => void;
  /**
   * Close connections idle this long, s: dynalite only; DynamoDB Local (Jetty inside a jar) has
   * no option for it and keeps its own. @default 60
   */
  readonly idleTimeoutS?: number;
  /** How long to wait for the engine to answer. @default 15 000 for dynalite, 90 000 for dynamodb-local */
  readonly startTimeoutMs?: number;
}

export interface Engine {
  readonly kind: EngineKind;
  /** http://127.0.0.1:PORT */
  readonly endpoint: string;
  readonly port: number;
  /** PID of the engine's own process (node for dynalite, java for dynamodb-local). */
  readonly pid: number;
  /** SIGTERM, then SIGKILL after a grace period; resolves once the process has exited. Idempotent. */
  stop(): Promise<void>;
}
