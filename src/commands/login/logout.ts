import { subcommand } from '../command.ts';
import { contract } from '../contract.ts';
import { message } from '../reply.ts';
import { loggedOutText, loggedOutUnconfirmedText, notLoggedInText } from '../../views/login/loginWords.ts';

export const logoutCommand = subcommand({
  name: 'logout',
  usage: 'logout',
  summary: 'Ends your platform session and forgets it.',
  examples: ['logout'],
  args: contract({ command: 'logout', usage: 'logout' }),
  async run(request, _args, { login }) {
    const outcome = await login.logOut(request.actor);
    if (outcome.kind === 'none') return message(notLoggedInText);
    return message(outcome.platformConfirmed ? loggedOutText : loggedOutUnconfirmedText);
  },
});
