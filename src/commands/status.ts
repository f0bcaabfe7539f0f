import type { CardRecord } from '../attacks/cards.ts';
import { isLive } from '../attacks/lifecycle.ts';
import type { Services } from '../services.ts';
import type { Login } from '../store/sessions.ts';
import { statusMessage, type StatusGuard } from '../views/status.ts';
import { code, escapeMrkdwn } from '../views/blocks.ts';
import { guardKey, guardName, type GuardSpec } from '../guardrails/guards.ts';
import { subcommand } from './command.ts';
import { contract } from './contract.ts';
import { gameDaysFor } from './home.ts';

async function liveCardsFor(deps: Services, login: Login): Promise<CardRecord[]> {
  const teams = new Set(login.session.teams.map((t) => t.identifier));
  const guids = [...(await deps.attacks.cards.liveByTeam())]
    .filter(([teamId]) => teams.has(teamId))
    .flatMap(([, g]) => g);
  const cards = (await deps.attacks.cards.getMany(guids)).filter((c): c is CardRecord => c !== undefined && isLive(c));
  return cards.sort((a, b) => b.createdAt.localeCompare(a.createdAt));
}

/**
 * The guards of the game days shown and of the live attacks (their own, set with `--guard`),
 * each once with its last reading and everything it guards.
 */
async function guardsFor(deps: Services, gameDays: { channel: string }[], live: CardRecord[]): Promise<StatusGuard[]> {
  const byKey = new Map<string, { spec: GuardSpec; covers: string[] }>();
  const add = (spec: GuardSpec, covers: string) => {
    const entry = byKey.get(guardKey(spec)) ?? { spec, covers: [] };
    entry.covers.push(covers);
    byKey.set(guardKey(spec), entry);
  };
  for (const { channel } of gameDays) {
    const day = await deps.gamedays.days.running(channel);
    if (!day) continue;
    for (const guard of await deps.guardrails.guards.forGameDay(day.id))
      add(guard.spec, `game day *${escapeMrkdwn(day.title)}* in <#${day.channel}>`);
  }
  for (const card of live) {
    for (const guard of await deps.guardrails.guards.forAttack(card.guid))
      add(guard.spec, `*${escapeMrkdwn(card.type)}* ${code(card.guid)}`);
  }
  return Promise.all(
    [...byKey].map(async ([key, { spec, covers }]) => {
      const reading = await deps.guardrails.guards.reading(spec);
      return { key, name: guardName(spec, reading), state: reading?.state, health: reading?.health, covers };
    }),
  );
}

export const statusCommand = subcommand({
  name: 'status',
  usage: 'status',
  summary:
    "What stands now in your teams and channels: freezes, guards, running game days, this channel's watches and live attacks.",
  examples: ['status'],
  args: contract({ command: 'status', usage: 'status' }),
  async run(request, _args, deps) {
    const login = await deps.login.require(request.actor);
    const channel = request.actor.channelId;
    const [freezes, gameDays, live, watches] = await Promise.all([
      deps.guardrails.freezes.touching(login.session.teams.map((t) => t.identifier)),
      gameDaysFor(deps, request.actor),
      liveCardsFor(deps, login),
      channel ? deps.attacks.watches.inChannel(channel) : undefined,
    ]);
    const guards = await guardsFor(deps, gameDays, live);
    return {
      kind: 'message',
      message: statusMessage({ freezes, guards, gameDays, live, watches, command: deps.command }),
    };
  },
});
