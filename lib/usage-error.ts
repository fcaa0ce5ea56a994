/** A bad flag or missing setting: every CLI prints the message alone and exits 2. */
export class UsageError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'UsageError';
  }
}
