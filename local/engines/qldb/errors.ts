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
