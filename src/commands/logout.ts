import { UnauthorizedError } from '../client/errors.ts';
import { audit } from '../audit.ts';
import { subcommand } from './command.ts';
import { contract } from './contract.ts';
import { message } from './reply.ts';
import { loggedOutText, loggedOutUnconfirmedText, notLoggedInText } from '../views/login.ts';

export const logoutCommand = subcommand({
  name: 'logout',
  usage: 'logout',
  summary: 'Ends your platform session and forgets it.',
  examples: ['logout'],
  args: contract({ command: 'logout', usage: 'logout' }),
  async run(request, _args, deps) {
    const login = await deps.sessions.get(request.actor);
    if (!login) return message(notLoggedInText);
    try {
      await deps.platform.auth.logout({ header: login.session.header });
    } catch (error) {
      // A session the platform already dropped is as good as logged out; anything else is said.
      if (!(error instanceof UnauthorizedError)) {
        await deps.sessions.drop(request.actor);
        deps.logger.warn({ err: error }, 'platform logout failed');
        audit(deps.logger, 'logout', request.actor, {
          platformUser: login.session.identifier,
          platformConfirmed: false,
        });
        return message(loggedOutUnconfirmedText);
      }
    }
    await deps.sessions.drop(request.actor);
    audit(deps.logger, 'logout', request.actor, { platformUser: login.session.identifier, platformConfirmed: true });
    return message(loggedOutText);
  },
});
