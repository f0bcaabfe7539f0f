/**
 * The store did not answer: Redis unreachable or too slow, or SQLite failing. Every store call
 * rejects with this rather than pretending (a lost write, an empty read that looks like "logged
 * out"); describeError turns it into the one sentence a person sees.
 */
export class StoreUnavailableError extends Error {
  override name = 'StoreUnavailableError';
  constructor(kind: string, options: { cause: unknown }) {
    super(`The ${kind} store did not answer`, options);
  }
}
