import type { KnownBlock } from '@slack/types';
import type { Attack } from '../../client/index.ts';
import { requestWords, type AttackRequest, type AttackTarget } from '../../attacks/request.ts';
import type { StartedAttack } from '../../attacks/start.ts';
import type { BlastRadius, NoTargetsError } from '../../attacks/blastRadius.ts';
import { blastRadiusText, noun, ofTeam } from './blastRadius.ts';
import { actions, agree, button, context, escapeMrkdwn, fields, section, plural } from '../blocks.ts';

const pairs = (map: Record<string, string>) =>
  Object.entries(map)
    .map(([k, v]) => `${k}=${v}`)
    .join(', ');

/** The target in words, for the preview and the card; "every active client" is said outright. */
export function describeTarget(target: AttackTarget, teamName: string): string {
  switch (target.kind) {
    case 'all':
      return `every active client of team ${teamName}`;
    case 'hosts':
      return `${agree(target.ids.length, 'host')} ${target.ids.join(', ')}`;
    case 'containers':
      return `${agree(target.ids.length, 'container')} ${target.ids.join(', ')}`;
    case 'tags':
      return `${target.count !== undefined ? plural(target.count, 'random host') : 'all hosts'} tagged ${pairs(target.tags)}`;
    case 'labels':
      return `${target.count !== undefined ? plural(target.count, 'random container') : 'all containers'} labelled ${pairs(target.labels)}`;
    case 'service': {
      const share =
        target.percent !== undefined && target.percent < 100
          ? `a random ${target.percent}% of the targets of service`
          : 'every target of service';
      return `${share} ${target.serviceId}${target.includeNewTargets ? ', and targets that join it while the attack runs' : ''}`;
    }
    case 'kubernetes': {
      const objects = target.objects.map((o) => `${o.kind} ${o.name} in ${o.clusterId}/${o.namespace}`).join(', ');
      const many = target.objects.length > 1;
      const objectsWords = `${many ? `${target.objects.length} Kubernetes objects` : 'Kubernetes object'} ${objects}`;
      if (target.count !== undefined) return `${plural(target.count, 'random object')} of ${objectsWords}`;
      if (target.percent !== undefined) return `a random ${target.percent}% of ${objectsWords}`;
      return many ? `all ${objectsWords}` : objectsWords;
    }
  }
}

/** The target of an attack created elsewhere, in words, from the platform's record of it. */
export function platformTargetWords(
  attack: Pick<Attack, 'infra_target' | 'targets' | 'target_type'>,
  teamName: string,
): string {
  const target = attack.infra_target ?? {};
  const ids = (group: unknown) => (group as { ids?: unknown } | undefined)?.ids;
  const hosts = ids(target['hosts']);
  const containers = target['containers'] as { ids?: unknown; labels?: unknown } | undefined;
  const count = typeof target['exact'] === 'number' ? target['exact'] : undefined;
  const strings = (map: unknown): Record<string, string> =>
    map && typeof map === 'object'
      ? Object.fromEntries(Object.entries(map as Record<string, unknown>).map(([k, v]) => [k, String(v)]))
      : {};
  const [labels, tags] = [strings(containers?.labels), strings(target['tags'])];
  const shown: AttackTarget | undefined =
    Array.isArray(hosts) && hosts.length
      ? { kind: 'hosts', ids: hosts }
      : Array.isArray(containers?.ids) && containers.ids.length
        ? { kind: 'containers', ids: containers.ids }
        : Object.keys(labels).length
          ? { kind: 'labels', labels, count }
          : Object.keys(tags).length
            ? { kind: 'tags', tags, count }
            : undefined;
  if (shown) return describeTarget(shown, teamName);
  if (attack.targets.length)
    return `${agree(attack.targets.length, attack.target_type === 'Container' ? 'container' : 'host')} ${attack.targets.slice(0, 10).join(', ')}${attack.targets.length > 10 ? ', …' : ''}`;
  return describeTarget({ kind: 'all' }, teamName);
}

/** A target that matches no active client, refused at the preview or the start. */
export function noTargetsText(error: NoTargetsError): string {
  const { set, suggestions } = error;
  const target = describeTarget(error.target, error.teamName);
  const hint = suggestions.length
    ? ` Did you mean ${suggestions.map((word) => `\`${escapeMrkdwn(word)}\``).join(' or ')}?`
    : " Check the target against the team's hosts and containers, then run the command again.";
  return `:no_entry: No active ${noun(set)} of team ${escapeMrkdwn(error.teamName)} matches ${escapeMrkdwn(target)} (${ofTeam(0, set)}).${hint} Nothing was sent to the platform.`;
}

export const ATTACK_START = 'attack_start';
export const ATTACK_CANCEL = 'attack_cancel';
export const ATTACK_PREVIEW_ACTIONS = 'attack_preview_actions';

/** Quotes a word so that the attack parser's tokenizer gives it back unchanged. */
function shellWord(word: string): string {
  if (/^[^\s\u0085"']+$/.test(word)) return word;
  // Adjacent quoted parts join into one word, so a double quote is written as '"' between them.
  return `"${word.replace(/"/g, `"'"'"`)}"`;
}

/**
 * The subcommand text that gives the same request, without the slash command:
 * `attack cpu -l 30 -c 1 --target-tags role=web --team Payments`.
 */
export function equivalentCommand(request: AttackRequest): string {
  return `attack ${commandWords(requestWords(request))}`;
}

/** Words as a person would type them, quoted where the tokenizer needs it to give them back. */
export function commandWords(words: readonly string[]): string {
  return words.map(shellWord).join(' ');
}

/** A code span of text a person may copy; a backtick would end the span early, so it is swapped for a look-alike. */
export const codeSpan = (text: string) => `\`${escapeMrkdwn(text).replace(/`/g, 'ˋ')}\``;

function lengthInWords(seconds: number): string {
  const unit = plural(seconds, 'second');
  if (seconds < 60) return unit;
  const h = Math.floor(seconds / 3600);
  const m = Math.floor((seconds % 3600) / 60);
  const s = seconds % 60;
  const parts = [h ? `${h} h` : '', m ? `${m} min` : '', s ? `${s} s` : ''].filter(Boolean).join(' ');
  return `${unit} (${parts})`;
}

export interface AttackPreviewInput {
  request: AttackRequest;
  /** Name of the team the attack will run in. */
  teamName: string;
  /** Id under which the handler keeps the request until Start or Cancel; none when it cannot start. */
  pendingId?: string | undefined;
  /** Why the person cannot start it: said in place of Start and Cancel. */
  refused?: string | undefined;
  /** The slash command, e.g. `/chaos`. */
  command: string;
  /** The channel its card (with its Halt button) goes to. */
  channel?: string | undefined;
  /** The guards that cover the start, one line each with what they read. */
  guards?: string[] | undefined;
  /** Set when a guard's state cannot be told: shown above the buttons, and Start becomes Start anyway. */
  warning?: string | undefined;
  /** Why the start needs a second person: Start becomes Request approval. */
  approval?: string | undefined;
  /** What the target matches among the team's active clients now. */
  blast?: BlastRadius | undefined;
  /** The name the attack was just saved under (the builder's Save as). */
  savedAs?: string | undefined;
  /** A rehearsal runs in the channel: this attack is real, and not part of it. */
  rehearsal?: boolean | undefined;
}

/** Why a person cannot start attacks in a team: the platform role lacks the privilege it asks. */
export const cannotRunText = (teamName: string, privilege: string) =>
  `You cannot start this attack: your platform role lacks the \`${privilege}\` privilege on team *${escapeMrkdwn(teamName)}*. Ask an owner of the team for a role that has it, or choose another team.`;

/** The ephemeral preview shown before an attack starts, with Start and Cancel (or why it cannot start). */
export function attackPreviewMessage(p: AttackPreviewInput): { text: string; blocks: KnownBlock[] } {
  const { request, teamName } = p;
  const target = describeTarget(request.target, teamName);
  const everyClient = request.target.kind === 'all';
  const argsText = request.args.length > 0 ? codeSpan(request.args.join(' ')) : 'none';
  const details: [string, string][] = [
    ['Type', codeSpan(request.type)],
    ['Arguments', argsText],
    ['Target', `${everyClient ? ':warning: ' : ''}${escapeMrkdwn(target)}`],
    ['Team', escapeMrkdwn(teamName)],
  ];
  if (request.lengthSeconds !== undefined) details.push(['Length', lengthInWords(request.lengthSeconds)]);

  // Shown with the team's name rather than an id picked in the builder: --team takes either.
  const shown = equivalentCommand({ ...request, team: request.team === undefined ? undefined : teamName });
  const blocks: KnownBlock[] = [
    section(
      p.refused ? `*This ${escapeMrkdwn(request.type)} attack*` : `*Start this ${escapeMrkdwn(request.type)} attack?*`,
    ),
    ...(everyClient
      ? [
          section(
            `:warning: *This attack hits every active client of team ${escapeMrkdwn(teamName)}.* To narrow it, add a target flag such as \`--target-tags role=web\`.`,
          ),
        ]
      : []),
    fields(details),
    ...(p.blast ? [section(blastRadiusText(p.blast, teamName))] : []),
    ...(p.guards?.length ? [section(`*Guards*\n${p.guards.join('\n')}`)] : []),
    ...(p.rehearsal
      ? [section(':warning: A rehearsal is running in this channel; this attack is real and is not part of it.')]
      : []),
    ...(p.warning ? [section(p.warning)] : []),
    ...(p.approval
      ? [
          section(
            `:raised_hand: This start needs a second person because ${p.approval}: the request goes to the channel, and the attack starts when someone else approves it.`,
          ),
        ]
      : []),
    ...(p.refused || p.pendingId === undefined
      ? [section(`:no_entry: ${p.refused ?? 'This attack cannot start from here.'}`)]
      : [
          actions(ATTACK_PREVIEW_ACTIONS, [
            button(p.approval ? 'Request approval' : p.warning ? 'Start anyway' : 'Start', ATTACK_START, {
              style: p.warning ? 'danger' : 'primary',
              value: p.pendingId,
            }),
            button('Cancel', ATTACK_CANCEL, { value: p.pendingId }),
          ]),
        ]),
    context(
      [
        ...(p.channel ? [`Its card, with its Halt button, goes to <#${p.channel}>.`] : []),
        `Same as typing ${codeSpan(`${p.command} ${shown}`)}`,
      ].join(' '),
    ),
    ...(p.savedAs
      ? [
          context(
            `:floppy_disk: Saved as *${escapeMrkdwn(p.savedAs)}*: ${codeSpan(`${p.command} run ${p.savedAs}`)} runs it again.`,
          ),
        ]
      : []),
  ];
  // The notification text is mrkdwn too: the type and the target are words a person typed.
  const text = escapeMrkdwn(
    `Start a ${request.type} attack on ${target}${request.lengthSeconds !== undefined ? ` for ${plural(request.lengthSeconds, 'second')}` : ''}?${everyClient ? ' Warning: every active client of the team is hit.' : ''}`,
  );
  return { text, blocks };
}

/** The answer to Start: what started, and where its card is (or why there is none, and how to halt it). */
export function startedText(
  request: Pick<AttackRequest, 'type' | 'target'>,
  teamName: string,
  started: Pick<StartedAttack, 'guid' | 'card' | 'cardError'>,
  command: string,
  permalink: string | undefined,
): string {
  const what = `*${escapeMrkdwn(request.type)}* attack \`${started.guid}\` on ${escapeMrkdwn(describeTarget(request.target, teamName))}`;
  if (!started.card)
    return `:rocket: Started ${what}, but its card could not be posted here (${started.cardError}). Invite the app to this channel to get live cards; until then, halt it with \`${command} halt ${started.guid}\`.`;
  return `:rocket: Started ${what}.${permalink ? ` <${permalink}|Its card> shows it live, with a Halt button.` : ' Its card in the channel shows it live, with a Halt button.'}`;
}

/** Start or Cancel on a preview whose request is gone. */
export const previewExpiredText = 'This preview has expired. Run the command again for a new one.';

/** Cancel on a preview. */
export const previewCancelledText = 'Cancelled. Nothing was sent to the platform.';
