/**
 * The QLDB Session exceptions the engine answers with. Kept free of the AWS SDK so the engine's
 * process loads nothing it does not use; the HTTP endpoint writes them as AWS JSON errors and the
 * test mock turns them into the SDK's own exception classes.
 */
export const QLDB_ERROR_CODES = [
  'BadRequestException',
  'InvalidSessionException',
  'OccConflictException',
  'LimitExceededException',
  'RateExceededException',
  'CapacityExceededException',
] as const;
export type QldbErrorCode = (typeof QLDB_ERROR_CODES)[number];

export class QldbError extends Error {
  constructor(
    readonly code: QldbErrorCode,
    message: string,
  ) {
    super(message);
    this.name = code;
  }

  static badRequest(message: string): QldbError {
    return new QldbError('BadRequestException', message);
  }

  static invalidSession(message: string): QldbError {
    return new QldbError('InvalidSessionException', message);
  }

  static occConflict(transactionId: string): QldbError {
    return new QldbError(
      'OccConflictException',
      `Optimistic concurrency control (OCC) failure encountered while committing transaction ${transactionId}`,
    );
  }
}

/**
 * A failure while a commit (or a control-plane change) was being applied or made durable: memory
 * may now be ahead of the journal, so the engine must stop rather than acknowledge anything more.
 * Any other unexpected error happened before anything changed and is answered as an internal error.
 */
export class CommitFailure extends Error {
  constructor(readonly failure: Error) {
    super(`commit failed: ${failure.message}`);
    this.name = 'CommitFailure';
    this.stack = failure.stack;
  }
}

/** Runs one step of a commit: a QLDB exception passes through, anything else is a CommitFailure. */
export async function committing<T>(step: () => T | Promise<T>): Promise<T> {
  try {
    return await step();
  } catch (err) {
    if (err instanceof QldbError || err instanceof CommitFailure) throw err;
    throw new CommitFailure(err instanceof Error ? err : new Error(String(err)));
  }
}
