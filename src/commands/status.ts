import type { CardRecord } from '../attacks/cards.ts';
import { isLive } from '../attacks/cards.ts';
import { requireLogin } from '../attacks/access.ts';
import type { Deps } from '../deps.ts';
import type { Login } from '../store/sessions.ts';
import { statusMessage } from '../views/status.ts';
import type { Subcommand } from './command.ts';
import { gameDaysFor } from './home.ts';

async function liveCardsFor(deps: Deps, login: Login): Promise<CardRecord[]> {
  const teams = new Set(login.session.teams.map((t) => t.identifier));
  const guids = [...(await deps.cards.liveByTeam())].filter(([teamId]) => teams.has(teamId)).flatMap(([, g]) => g);
  const cards = (await Promise.all(guids.map((guid) => deps.cards.get(guid)))).filter((c): c is CardRecord => c !== undefined && isLive(c));
  return cards.sort((a, b) => b.createdAt.localeCompare(a.createdAt));
}

export const statusCommand: Subcommand = {
  name: 'status',
  usage: 'status',
  summary: 'What stands now in your teams and channels: freezes, running game days, this channel\'s watches and live attacks.',
  examples: ['status'],
  async run(request, deps) {
    const login = await requireLogin(deps, request.actor);
    const channel = request.actor.channelId;
    const [freezes, gameDays, live, watches] = await Promise.all([
      deps.freezes.touching(login.session.teams.map((t) => t.identifier)),
      gameDaysFor(deps, request.actor),
      liveCardsFor(deps, login),
      channel ? deps.watches.inChannel(channel) : undefined,
    ]);
    return { kind: 'message', message: statusMessage({ freezes, gameDays, live, watches, command: deps.config.slack.command }) };
  },
};
