import type { StartIntent, StartNews, StartNotices } from '../attacks/startIntents.ts';
import {
  notStartedAfterRestartMessage,
  startedAfterRestartMessage,
  uncheckedAfterRestartMessage,
  unconfirmedAfterRestartMessage,
} from '../views/attacks/startRecovery.ts';
import type { Messenger } from './messenger.ts';

/**
 * How a start a restarted bot finished ended, by direct message to its starter: the reply they
 * were waiting for went with the old process.
 */
export class SlackStartNotices implements StartNotices {
  readonly #messenger: Pick<Messenger, 'post'>;
  readonly #command: string;

  constructor(messenger: Pick<Messenger, 'post'>, command: string) {
    this.#messenger = messenger;
    this.#command = command;
  }

  async tell(intent: StartIntent, news: StartNews): Promise<void> {
    const what = { type: intent.request.type, teamName: intent.teamName, channel: intent.channel };
    const message =
      news.kind === 'started'
        ? startedAfterRestartMessage(what, news.guid, news.carded, this.#command)
        : news.kind === 'not sent'
          ? notStartedAfterRestartMessage(what)
          : news.kind === 'unchecked'
            ? uncheckedAfterRestartMessage(what, this.#command)
            : unconfirmedAfterRestartMessage(what, news.candidates, this.#command);
    await this.#messenger.post(intent.actor.userId, message);
  }
}
