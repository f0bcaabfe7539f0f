import { subcommand } from '../command.ts';
import { contract } from '../contract.ts';
import { message } from '../reply.ts';
import { logOut } from '../../login/logOut.ts';
import { loggedOutText, loggedOutUnconfirmedText, notLoggedInText } from '../../views/login/loginWords.ts';

export const logoutCommand = subcommand({
  name: 'logout',
  usage: 'logout',
  summary: 'Ends your platform session and forgets it.',
  examples: ['logout'],
  args: contract({ command: 'logout', usage: 'logout' }),
  async run(request, _args, deps) {
    const outcome = await logOut(request.actor, deps);
    if (outcome.kind === 'none') return message(notLoggedInText);
    return message(outcome.platformConfirmed ? loggedOutText : loggedOutUnconfirmedText);
  },
});
