import type { WebClient } from '@slack/web-api';
import type { SlackDirectory, SlackIdentity } from '../login/service.ts';
import type { Logger } from '../logger.ts';
import { personName } from './people.ts';

interface SlackUser {
  id?: string | undefined;
  name?: string | undefined;
  real_name?: string | undefined;
  profile?:
    | { real_name?: string | undefined; display_name?: string | undefined; email?: string | undefined }
    | undefined;
}

const slackError = (error: unknown) => (error as { data?: { error?: string } }).data?.error;

function identity(user: SlackUser | undefined, userId: string): SlackIdentity {
  return {
    userId: user?.id ?? userId,
    name: personName(user, userId),
    handle: user?.name?.trim() || userId,
    email: user?.profile?.email?.trim() || undefined,
  };
}

/**
 * Who a login links to, asked of Slack each time (users.info and users.lookupByEmail, scopes
 * users:read and users:read.email): the e-mail a login is matched against must be the profile's
 * now, not an hour ago. The workspace's name (auth.test) does not change under a running bot.
 */
export class SlackPeopleDirectory implements SlackDirectory {
  readonly #client: WebClient;
  readonly #logger: Logger;
  #workspace: Promise<string | undefined> | undefined;

  constructor(client: WebClient, logger: Logger) {
    this.#client = client;
    this.#logger = logger;
  }

  async person(userId: string): Promise<SlackIdentity | undefined> {
    try {
      const { user } = await this.#client.users.info({ user: userId });
      return identity(user, userId);
    } catch (error) {
      this.#logger.warn({ err: error, user: userId, slackError: slackError(error) }, 'could not read a Slack profile');
      return undefined;
    }
  }

  async byEmail(email: string): Promise<SlackIdentity | undefined> {
    try {
      const { user } = await this.#client.users.lookupByEmail({ email });
      return user?.id ? identity(user, user.id) : undefined;
    } catch (error) {
      if (slackError(error) !== 'users_not_found')
        this.#logger.warn(
          { err: error, slackError: slackError(error) },
          'could not look a person up by e-mail in Slack',
        );
      return undefined;
    }
  }

  workspaceName(): Promise<string | undefined> {
    this.#workspace ??= this.#client.auth.test().then(
      ({ team }) => team?.trim() || undefined,
      (error: unknown) => {
        // Asked again next time: a name is worth one more call, not a wrong page.
        this.#workspace = undefined;
        this.#logger.warn({ err: error, slackError: slackError(error) }, "could not read the workspace's name");
        return undefined;
      },
    );
    return this.#workspace;
  }
}
