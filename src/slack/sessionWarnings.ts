import type { ExpiryWarning, SessionWarnings } from '../login/service.ts';
import type { Person } from '../store/sessions.ts';
import { expiryWarningMessage } from '../views/login/loginWords.ts';
import type { Messenger } from './messenger.ts';

/** Warnings before a session ends, by direct message. */
export class SlackSessionWarnings implements SessionWarnings {
  readonly #messenger: Pick<Messenger, 'post'>;

  constructor(messenger: Pick<Messenger, 'post'>) {
    this.#messenger = messenger;
  }

  async warn(person: Person, warning: ExpiryWarning): Promise<void> {
    await this.#messenger.post(person.userId, expiryWarningMessage(warning));
  }
}
