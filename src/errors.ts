/** Input a person typed or picked that cannot be used; the message says why, `usage` how. */
export class UserInputError extends Error {
  override name = 'UserInputError';
  readonly usage: string | undefined;
  constructor(message: string, usage?: string) {
    super(message);
    this.usage = usage;
  }
}

/** The person has no usable platform session (never logged in, expired, or logged out). */
export class NotLoggedInError extends Error {
  override name = 'NotLoggedInError';
  readonly expired: boolean;
  constructor(expired = false) {
    super(expired ? 'The platform session expired' : 'Not logged in');
    this.expired = expired;
  }
}

/** Logged in, but no team is selected and the call needs one. */
export class NoTeamSelectedError extends Error {
  override name = 'NoTeamSelectedError';
  constructor() {
    super('No team selected');
  }
}

/** What a failed call was about, for the words a person sees (see describeError). */
export interface ErrorDetails {
  team?: string | undefined;
  doing?: string | undefined;
  subject?: string | undefined;
  /** The subcommand that shows whether something with an unknown outcome happened (default `list`). */
  check?: string | undefined;
}

const details = new WeakMap<object, ErrorDetails>();

/** Runs `fn`; a failure leaves it with what was being done, so the message can say so. */
export async function explained<T>(what: ErrorDetails, fn: () => Promise<T>): Promise<T> {
  try {
    return await fn();
  } catch (error) {
    if (typeof error === 'object' && error !== null && !details.has(error)) details.set(error, what);
    throw error;
  }
}

export function detailsOf(error: unknown): ErrorDetails {
  return (typeof error === 'object' && error !== null && details.get(error)) || {};
}
