import { z } from 'zod';
import type { Services } from '../../services.ts';
import type { Actor } from '../../store/sessions.ts';
import type { Message } from '../../views/message.ts';
import { isOnce, type Reply, type SlackbotTool, type Subcommand, splitWords } from '../command.ts';
import { UserInputError } from '../../errors.ts';
import { teamName } from '../../attacks/access.ts';
import { massHaltText } from '../../views/attacks/halt.ts';
import { stepHaltIncompleteText } from '../../views/workflow/workflowSteps.ts';
import { ATTACK_START } from '../../views/attacks/attackPreview.ts';
import { noYesText, toolText, waitingForStartText, withCardLink } from '../../views/slackbot/tools.ts';
import { matchTeam } from '../arguments.ts';
import { attackCommand } from '../attacks/attack.ts';
import { listReply } from '../attacks/list.ts';
import { showAttack } from '../attacks/show.ts';
import { haltCommand } from '../attacks/halt.ts';
import { runCommand, savedCommand } from '../attacks/saved.ts';
import { freezeCommand, unfreezeCommand } from '../guardrails/freeze.ts';
import { gamedayCommand } from '../gamedays/gameday.ts';

// Each tool is the slash command it names, given its words as tokens (never text to split, so an
// argument stays one word): the command's contract reads them, and its rules and words apply.

/** A word a command reads as a value: never taken for a flag. */
const word = (what: string) =>
  z.string().trim().min(1).max(300).regex(/^[^-]/, `${what} cannot start with “-”.`).describe(what);
const team = word('The name (or part of it) or id of one of your platform teams; leave out for your selected team.');
const channel = z
  .string()
  .regex(/^[CGD][A-Z0-9]{2,}$/, 'A channel id such as C0123ABCD.')
  .describe('The Slack channel id (C…) where the attack card is posted.');
const attackId = word('The attack id, or its first 8 characters or more (on the attack card and in list_attacks).');
const reason = word('Why, in a few words: it is recorded with the halt or freeze.');

/** Runs a subcommand on `tokens` as `actor` (in `channel`, if given) and gives back its message. */
async function command(
  sub: Subcommand,
  tokens: (string | undefined | false)[],
  actor: Actor,
  deps: Services,
): Promise<Message> {
  const given = tokens.filter((t): t is string => typeof t === 'string');
  const entry = sub.take({ actor, tokens: given, rest: given.join(' ') });
  return messageOf(await (isOnce(entry) ? entry.run : entry)(deps));
}

function messageOf(reply: Reply): Message {
  if (reply.kind !== 'message') throw new Error(`a command answered Slackbot with a ${reply.kind}`);
  return reply.message;
}

const flag = (name: string, value: string | undefined) => (value === undefined ? [] : [`--${name}`, value]);

/** The words of `/chaos attack …`; `--yes` is refused, since only a click in Slack starts an attack. */
function attackWords(words: string): string[] {
  const tokens = splitWords(words).words;
  if (tokens[0]?.toLowerCase() === 'attack') tokens.shift();
  if (tokens.some((t) => /^--yes(=|$)/i.test(t))) throw new UserInputError(noYesText);
  if (!tokens.length) throw new UserInputError('Give the attack type and its flags, as after `attack`.');
  return tokens;
}

/**
 * The preview, posted to the person by direct message with Start and Cancel (the preview's own
 * buttons, whose Start goes through the start policy): Slackbot is told to wait for the click.
 */
async function askForStart(preview: Message, actor: Actor, deps: Services): Promise<Message> {
  const startable = (preview.blocks ?? []).some(
    (block) => block.type === 'actions' && block.elements.some((e) => 'action_id' in e && e.action_id === ATTACK_START),
  );
  if (!startable) return preview;
  await deps.slack.post(actor.userId, preview);
  return { text: waitingForStartText(toolText(preview)) };
}

const fullId = /[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/;

/** The message with the link to the card of the attack it names, when Faultline posted one. */
async function attackCardLink(message: Message, deps: Services): Promise<Message> {
  const guid = fullId.exec(toolText(message))?.[0];
  const card = guid === undefined ? undefined : await deps.attacks.cards.get(guid);
  const permalink = card && (await deps.slack.permalink(card.channel, card.ts));
  return permalink ? withCardLink(message, 'attack', permalink) : message;
}

const tool = <S extends z.ZodRawShape>(spec: {
  name: string;
  description: string;
  input: S;
  readOnly: boolean;
  run(args: z.output<z.ZodObject<S>>, actor: Actor, deps: Services): Promise<Message>;
}): SlackbotTool => spec as unknown as SlackbotTool;

export const slackbotTools: SlackbotTool[] = [
  tool({
    name: 'list_attacks',
    description: 'Lists the attacks of a platform team: active ones (running now) or completed ones, a page of them.',
    input: { team: team.optional(), state: z.enum(['active', 'completed']).default('active') },
    readOnly: true,
    async run(args, actor, deps) {
      const login = await deps.login.require(actor);
      const teamId = args.team === undefined ? undefined : matchTeam(login.session.teams, args.team).identifier;
      const query = { which: args.state, source: undefined, k8s: false, teamId, pageNumber: 1 };
      return messageOf(await listReply(deps, actor, query, false));
    },
  }),
  tool({
    name: 'show_attack',
    description: 'Shows one attack: its type, stage, targets, who started it, and its link on the platform.',
    input: { id: attackId },
    readOnly: true,
    run: async (args, actor, deps) => attackCardLink(messageOf(await showAttack(deps, actor, args.id)), deps),
  }),
  tool({
    name: 'preview_attack',
    description:
      'Previews an attack without starting it: what would run, where, for how long, and whether a freeze, a guard or an approval rule stands in the way. Takes the same words as `/chaos attack`, e.g. "cpu -l 60 -c 1 --target-tags role=web --team Platform".',
    input: {
      words: z.string().min(1).max(2000).describe('The words after `/chaos attack`: the type, then its flags.'),
      channel,
    },
    readOnly: true,
    run: (args, actor, deps) =>
      command(attackCommand, attackWords(args.words), { ...actor, channelId: args.channel }, deps),
  }),
  tool({
    name: 'request_attack',
    description:
      'Asks the person to start an attack: posts its preview to them in Slack with Start and Cancel. Nothing starts unless they press Start there; Slackbot never starts one. Same words as `/chaos attack`.',
    input: {
      words: z.string().min(1).max(2000).describe('The words after `/chaos attack`: the type, then its flags.'),
      channel,
    },
    readOnly: false,
    async run(args, actor, deps) {
      const here = { ...actor, channelId: args.channel };
      return askForStart(await command(attackCommand, attackWords(args.words), here, deps), here, deps);
    },
  }),
  tool({
    name: 'run_saved_attack',
    description:
      "Asks the person to run one of the team's saved attacks: posts its preview to them in Slack with Start and Cancel. Nothing starts unless they press Start there.",
    input: { name: word('The saved attack’s name (see saved_attacks).'), team: team.optional(), channel },
    readOnly: false,
    async run(args, actor, deps) {
      const here = { ...actor, channelId: args.channel };
      return askForStart(await command(runCommand, [args.name, ...flag('team', args.team)], here, deps), here, deps);
    },
  }),
  tool({
    name: 'halt_attack',
    description: 'Halts one attack at once, with the person’s own platform privileges.',
    input: { id: attackId, reason: reason.optional() },
    readOnly: false,
    run: async (args, actor, deps) =>
      attackCardLink(await command(haltCommand, [args.id, ...flag('reason', args.reason)], actor, deps), deps),
  }),
  tool({
    name: 'halt_all',
    description:
      'Halts at once every active attack of one team, or of every team the person reaches when no team is given.',
    input: {
      team: word('The team whose attacks to halt; leave out for all of your teams.').optional(),
      reason: reason.optional(),
    },
    readOnly: false,
    async run(args, actor, deps) {
      const { attacks } = deps;
      if (args.team === undefined)
        return { text: massHaltText(actor.userId, await attacks.haltAll(actor, undefined, args.reason)) };
      const login = await deps.login.require(actor);
      const why = args.reason ?? `Halted from Slack by ${await deps.attacks.personName(actor.userId)}`;
      const chosen = matchTeam(login.session.teams, args.team);
      const swept = await deps.guardrails.haltTeam(actor, login, chosen, why);
      if (swept.failed.length || swept.unread.length) {
        const failed = swept.failed.map((a) => a.guid);
        const unread = swept.unread.length > 0;
        return {
          text: stepHaltIncompleteText(teamName(chosen), swept.halted.length, failed, unread, deps.command),
        };
      }
      return { text: massHaltText(actor.userId, { halted: swept.halted, ended: [] }) };
    },
  }),
  tool({
    name: 'freeze',
    description:
      'Declares a freeze for an incident: halts every attack of a team (or of every team with all) and refuses every start there until unfreeze.',
    input: {
      team: team.optional(),
      all: z.boolean().optional().describe('Freeze every team (needs the HALT_ALL privilege).'),
      reason,
    },
    readOnly: false,
    run: (args, actor, deps) =>
      command(
        freezeCommand,
        [...flag('team', args.team), args.all === true && '--all', '--reason', args.reason],
        actor,
        deps,
      ),
  }),
  tool({
    name: 'unfreeze',
    description: 'Lifts the freeze of a team (or of every team with all): attacks may start there again.',
    input: {
      team: team.optional(),
      all: z.boolean().optional().describe('Lift the freeze of every team.'),
      reason: word('Why the freeze ends, in a few words.'),
    },
    readOnly: false,
    run: (args, actor, deps) =>
      command(unfreezeCommand, [...flag('team', args.team), args.all === true && '--all'], actor, deps),
  }),
  tool({
    name: 'game_day_status',
    description: "Says how a channel's game day stands: its title, facilitator, attacks, guards and plan.",
    input: { channel: channel.describe('The Slack channel id (C…) of the game day.') },
    readOnly: true,
    async run(args, actor, deps) {
      const status = await command(gamedayCommand, ['status'], { ...actor, channelId: args.channel }, deps);
      const running = await deps.gamedays.days.running(args.channel);
      const permalink = running && (await deps.slack.permalink(running.channel, running.ts));
      return permalink ? withCardLink(status, 'game day', permalink) : status;
    },
  }),
  tool({
    name: 'saved_attacks',
    description: "Lists a team's saved attacks, by name, with what each runs.",
    input: { team: team.optional() },
    readOnly: true,
    run: (args, actor, deps) => command(savedCommand, flag('team', args.team), actor, deps),
  }),
];
