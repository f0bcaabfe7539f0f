import type { Button, KnownBlock, MessageMetadata } from '@slack/types';
import type { CardRecord } from '../../attacks/cards.ts';
import { haltTimes, seconds, sloWords } from '../../attacks/haltChecks.ts';
import { canHalt, isFinished, phaseOf } from '../../attacks/lifecycle.ts';
import { isPathId } from '../../client/index.ts';
import type { Message } from '../message.ts';
import {
  actions,
  button,
  buttonObject,
  code,
  context,
  escapeMrkdwn,
  externalLink,
  fields,
  header,
  platformAttackUrl,
  section,
  slackDate,
  truncate,
  plural,
} from '../blocks.ts';

export const HALT_ATTACK = 'attack_halt';
/** Halt again: a halt sent once more for targets the last one did not stop. */
export const HALT_AGAIN = 'attack_halt_again';
export const ADD_NOTE = 'attack_add_note';
export const ATTACK_DETAILS = 'attack_details';
export const FILE_TICKET = 'attack_file_ticket';

/** What a Halt, note or details button carries: the attack, its team and its kind. */
export interface AttackRef {
  guid: string;
  teamId: string;
  kind: 'attack' | 'kubernetes';
  /** The list page the button sits in, so a halt can redraw it. */
  listId?: string | undefined;
}

export function attackRefValue(ref: AttackRef): string {
  return JSON.stringify({
    g: ref.guid,
    t: ref.teamId,
    k: ref.kind === 'kubernetes' ? 'k' : 'a',
    ...(ref.listId ? { l: ref.listId } : {}),
  });
}

/** The Halt button of one attack: the same on its card, in lists, in its details and on App Home. */
export function haltButton(ref: AttackRef): Button {
  return button('Halt', HALT_ATTACK, { style: 'danger', value: attackRefValue(ref) });
}

/** Halt again, where a target still runs a minute after a halt: on the card, in its thread, in the halter's message. */
export function haltAgainButton(ref: AttackRef): Button {
  return button('Halt again', HALT_AGAIN, { style: 'danger', value: attackRefValue(ref) });
}

/** Targets by id, a few of them, as a card and a message name them. */
export const targetList = (ids: readonly string[]) => ids.map((id) => code(id)).join(', ');

/** What the attack's executions show of its last halt: verified, under way, or not stopping a target. */
export function haltCheckText(check: NonNullable<CardRecord['haltCheck']>): string {
  const counted = `${check.stopped} of ${plural(check.total, 'target')} stopped`;
  const times = haltTimes(check.haltedAt, check.stops);
  if (check.verified)
    return check.total
      ? `:white_check_mark: *Halt verified*: ${counted}${times ? ` in ${seconds(times.slowestMs)} (slowest ${code(times.slowest.target)})` : ''}`
      : ':white_check_mark: *Halt verified*: no target was reached';
  if (check.stuck)
    return `:warning: *Halt not verified*: ${counted}; still running ${sloWords(check.sloSeconds)} after the halt: ${targetList(check.running)}`;
  return `:hourglass_flowing_sand: Halt sent: ${counted} so far`;
}

/**
 * The attack a button value (or a modal's private_metadata) names, or undefined when it is not
 * one Faultline could have made: the value comes from the person's Slack client, and its ids end
 * up in platform URL paths.
 */
export function parseAttackRef(value: string | undefined): AttackRef | undefined {
  const { g, t, k, l } = buttonObject(value) ?? {};
  if (!isPathId(g) || !isPathId(t) || (k !== undefined && k !== 'a' && k !== 'k') || (l !== undefined && !isPathId(l)))
    return undefined;
  return {
    guid: g,
    teamId: t,
    kind: k === 'k' ? 'kubernetes' : 'attack',
    ...(typeof l === 'string' ? { listId: l } : {}),
  };
}

/**
 * The platform's stages as a person says them, with their emoji. Names not listed (a stage the
 * platform adds later) are spaced out, which reads well enough, and take their lifecycle's emoji.
 */
const stages: Record<string, [words: string, emoji?: string]> = {
  Pending: ['Pending', ':hourglass_flowing_sand:'],
  Distributed: ['Distributed', ':hourglass_flowing_sand:'],
  Initializing: ['Initializing', ':hourglass_flowing_sand:'],
  Running: ['Running', ':fire:'],
  TearingDown: ['Tearing down', ':broom:'],
  InterruptTriggered: ['Interrupting', ':rotating_light:'],
  RollbackTriggered: ['Rolling back', ':rewind:'],
  RollbackStarted: ['Rolling back', ':rewind:'],
  Halt: ['Halting', ':octagonal_sign:'],
  HaltDistributed: ['Halting', ':octagonal_sign:'],
  Successful: ['Successful', ':white_check_mark:'],
  UserHalted: ['User Halted', ':octagonal_sign:'],
  InvalidArgument: ['Failed: invalid argument'],
  TargetNotFound: ['Failed: target not found'],
  ClientAborted: ['Failed: client aborted'],
  LostCommunication: ['Failed: lost communication'],
  InitializationFailed: ['Failed to initialize'],
  TeardownFailed: ['Failed to tear down'],
  HaltFailed: ['Halt failed'],
  Failed: ['Failed'],
};

/** A stage in words, e.g. "Halting" for `HaltDistributed`. */
export function stageWords(stage: string): string {
  return Object.hasOwn(stages, stage) ? stages[stage]![0] : stage.replace(/([a-z])([A-Z])/g, '$1 $2');
}

/** The stage as a person reads it: an emoji and the stage in words. */
export function stageLabel(stage: string, lifecycle: string): string {
  const emoji =
    (Object.hasOwn(stages, stage) ? stages[stage]![1] : undefined) ??
    (lifecycle === 'Error' ? ':x:' : lifecycle === 'Complete' ? ':white_check_mark:' : ':grey_question:');
  return `${emoji} ${escapeMrkdwn(stageWords(stage))}`;
}

export function argsText(args: readonly string[]): string {
  return args.length ? `\`${escapeMrkdwn(truncate(args.join(' '), 500)).replace(/`/g, "'")}\`` : '_no arguments_';
}

const healthEmoji = {
  healthy: ':large_green_circle:',
  unhealthy: ':rotating_light:',
  unknown: ':grey_question:',
} as const;

/** The guards line of a card: each guard, its last state, and when one fired. */
export function guardsText(guards: NonNullable<CardRecord['guards']>): string {
  const parts = guards.slice(0, 10).map((g) => {
    const fired = g.firedAt ? ` · *fired* ${slackDate(new Date(g.firedAt), '{time}')}, halted this attack` : '';
    return `${g.health ? healthEmoji[g.health] : ':grey_question:'} ${escapeMrkdwn(g.name)}: ${escapeMrkdwn(g.state ?? 'not read yet')}${fired}`;
  });
  return `*Guards* ${parts.join(' · ')}`;
}

const sourceWords: Record<string, string> = {
  WebApp: 'the web UI',
  Api: 'the API',
  Scenario: 'a scenario',
  Schedule: 'a schedule',
  Cli: 'the command line',
  CLI: 'the command line',
};

/** Where an attack came from, as a person says it: "the web UI" for `WebApp`. */
export function createSourceWords(source: string | undefined): string {
  if (!source) return 'the platform';
  return Object.hasOwn(sourceWords, source) ? sourceWords[source]! : source;
}

/**
 * How many clients an attack hits, as the card, a list and `show` say it: the platform's count,
 * "resolving…" until it has one, and "not reported" when it ended without one.
 */
export function clientsText(total: number | undefined, finished: boolean): string {
  if (total !== undefined) return plural(total, 'client');
  return finished ? 'not reported' : 'resolving…';
}

/** Where an attack came from, as `show` says it: "Ad hoc, from the API". */
export function originText(source: string | undefined, createSource: string | undefined): string {
  const kind = source === 'Scenario' ? 'Part of a scenario' : 'Ad hoc';
  return createSource === 'Scenario' ? kind : `${kind}, from ${createSourceWords(createSource)}`;
}

/** Who started the attack and where, as the card's second line says it. */
function starterText(card: CardRecord, channel: string | undefined): string {
  if (card.origin) {
    return `Started from ${escapeMrkdwn(createSourceWords(card.origin.source))}${card.origin.user ? ` by ${escapeMrkdwn(card.origin.user)}` : ''} · seen by this channel's watch of the team`;
  }
  const where = channel && channel !== card.channel ? ` in <#${card.channel}>` : '';
  return `Started by <@${card.startedBy.userId}>${card.startedByPlatform ? ` (${escapeMrkdwn(card.startedByPlatform)})` : ''}${where}${card.approvedBy ? `, approved by <@${card.approvedBy.userId}>` : ''}`;
}

/** The attack's last ten notes, as its card and its details show them; none without notes. */
export function notesBlocks(annotations: Record<string, string> | undefined): KnownBlock[] {
  const notes = Object.values(annotations ?? {}).slice(-10);
  return notes.length
    ? [section(`*Notes*\n${notes.map((n) => `• ${escapeMrkdwn(truncate(n, 280))}`).join('\n')}`)]
    : [];
}

/** The attack's id, linked to its platform page where it has one. */
export function attackLinkLine(guid: string, appUrl: string | undefined): KnownBlock {
  const page = platformAttackUrl(appUrl, guid);
  return context(`Attack ${code(guid)}${page ? ` · ${externalLink(page, 'Open in the platform')}` : ''}`);
}

/** Whether the card offers Halt again: a target still runs a minute after its halt. */
const haltAgainDue = (card: CardRecord) => Boolean(card.haltCheck?.stuck && !card.haltCheck.verified);

/** The card posted in the channel when an attack starts, updated in place as its stage changes. */
export function attackCardMessage(
  card: CardRecord,
  links: { appUrl?: string | undefined; channel?: string | undefined } = {},
): Message {
  const ref = attackRefValue(card);
  const stage = stageLabel(card.stage, card.lifecycle);
  const started = card.startTime ?? card.createdAt;
  const ends = card.endTime
    ? `Ended ${slackDate(new Date(card.endTime))}`
    : card.lengthSeconds !== undefined
      ? `Ends about ${slackDate(new Date(new Date(started).getTime() + card.lengthSeconds * 1000))}`
      : 'Runs until it completes';
  const halter = (h: CardRecord['haltedBy'][number]) =>
    `<@${h.userId}>${h.reason ? ` (${escapeMrkdwn(h.reason)})` : ''}`;
  const halted = card.haltedBy.length
    ? `\nHalt requested by ${[...new Set(card.haltedBy.map(halter))].join(', ')}`
    : '';
  const inTeam = !namesTeam(card.targetWords, card.teamName);
  const blocks: KnownBlock[] = [
    header(`${card.type} attack · ${stageWords(card.stage)}`),
    section(
      `*${escapeMrkdwn(card.type)}* ${argsText(card.args)} on ${escapeMrkdwn(card.targetWords)}${inTeam ? ` in team *${escapeMrkdwn(card.teamName)}*` : ''}\n${starterText(card, links.channel)}${halted}`,
    ),
    fields([
      ['Stage', stage],
      ['Targets', clientsText(card.totalClients, isFinished(card))],
      ['Started', slackDate(new Date(started))],
      ['End', ends],
    ]),
  ];
  blocks.push(...notesBlocks(card.annotations));
  if (card.unwatched)
    blocks.push(
      section(
        `:zzz: *Halted: nobody was watching.* <@${card.unwatched.askedOf}> did not answer the presence check in time.`,
      ),
    );
  if (card.haltCheck)
    blocks.push(
      card.haltCheck.stuck && !card.haltCheck.verified
        ? section(haltCheckText(card.haltCheck))
        : context(haltCheckText(card.haltCheck)),
    );
  if (card.guards?.length) blocks.push(context(guardsText(card.guards)));
  if (card.ticketCount) blocks.push(context(`:ticket: ${plural(card.ticketCount, 'ticket')} filed`));
  blocks.push(attackLinkLine(card.guid, links.appUrl));
  blocks.push(
    actions('attack_card_actions', [
      ...(haltAgainDue(card) ? [haltAgainButton(card)] : canHalt(card) ? [haltButton(card)] : []),
      button('File ticket', FILE_TICKET, { value: ref }),
      button('Add note', ADD_NOTE, { value: ref }),
      button('Details', ATTACK_DETAILS, { value: ref }),
    ]),
  );
  // Notification text is mrkdwn too: what a person typed must not ping the channel.
  const text = escapeMrkdwn(
    `${card.type} attack on ${card.targetWords}${namesTeam(card.targetWords, card.teamName) ? '' : ` in team ${card.teamName}`}: ${stageWords(card.stage)}`,
  );
  return { text, blocks, metadata: attackMetadata(card) };
}

/** Whether a target's words name its team already ("every active client of team T"), so "in team T" would say it twice. */
const namesTeam = (targetWords: string, teamName: string): boolean => targetWords.endsWith(`of team ${teamName}`);

/** The event type other apps read on an attack card (declared under `types` in manifest.yml). */
export const ATTACK_EVENT_TYPE = 'faultline_attack';

/**
 * What an attack card says to other apps: the attack, its team, its type and stage, and who
 * started it. Sent with every post and update of the card, so it is always the card's state.
 */
function attackMetadata(card: CardRecord): MessageMetadata {
  return {
    event_type: ATTACK_EVENT_TYPE,
    event_payload: {
      id: card.guid,
      kind: card.kind,
      team_id: card.teamId,
      team: card.teamName,
      type: card.type,
      stage: card.stage,
      phase: phaseOf(card),
      // A Slack user id; for an attack a watch found, the person whose watch read it.
      started_by: card.startedBy.userId,
      ...(card.startedByPlatform ? { started_by_platform: card.startedByPlatform } : {}),
      ...(card.origin?.source ? { source: card.origin.source } : {}),
      created_at: card.createdAt,
      ...(card.endTime ? { ended_at: card.endTime } : {}),
    },
  };
}
