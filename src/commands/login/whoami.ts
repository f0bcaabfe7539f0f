import { subcommand } from '../command.ts';
import { contract } from '../contract.ts';
import { whoamiMessage } from '../../views/login/loginWords.ts';

export const whoamiCommand = subcommand({
  name: 'whoami',
  usage: 'whoami',
  summary: 'Shows your platform login, company, current team, roles, privileges and when the session ends.',
  examples: ['whoami'],
  args: contract({ command: 'whoami', usage: 'whoami' }),
  async run(request, _args, { login, command }) {
    return { kind: 'message', message: whoamiMessage(await login.require(request.actor), command) };
  },
});
