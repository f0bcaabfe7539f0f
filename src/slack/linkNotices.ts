import type { LinkedElsewhere, LinkNotices, SlackIdentity } from '../login/service.ts';
import { linkedElsewhereMessage } from '../views/login/loginWords.ts';
import type { Messenger } from './messenger.ts';

/** The owner of a login's e-mail is told by direct message that it was linked to someone else. */
export class SlackLinkNotices implements LinkNotices {
  readonly #messenger: Pick<Messenger, 'post'>;

  constructor(messenger: Pick<Messenger, 'post'>) {
    this.#messenger = messenger;
  }

  async tell(owner: SlackIdentity, linked: LinkedElsewhere): Promise<void> {
    await this.#messenger.post(owner.userId, linkedElsewhereMessage(linked));
  }
}
