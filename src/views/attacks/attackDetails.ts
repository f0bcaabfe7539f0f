import type { KnownBlock } from '@slack/types';
import type { Attack, Execution } from '../../client/index.ts';
import { canHalt, isFinished } from '../../attacks/lifecycle.ts';
import type { Message } from '../message.ts';
import {
  actions,
  context,
  escapeMrkdwn,
  fields,
  header,
  section,
  slackDate,
  truncate,
  agree,
  plural,
} from '../blocks.ts';
import {
  argsText,
  attackLinkLine,
  clientsText,
  haltButton,
  notesBlocks,
  originText,
  stageLabel,
  stageWords,
} from './attackCard.ts';
import { haltReceiptText } from './halt.ts';
import type { HaltProgress } from '../../attacks/haltChecks.ts';

const when = (iso: string | undefined) => (iso ? slackDate(new Date(iso)) : '—');

/** Executions listed, one per target; the rest are counted. */
export const executionsShown = 10;

/** The attack's tickets as Details shows them: how many, or why that is not known. */
export type TicketCount = { count: number } | { noIntegration: true } | { problem: string };

function ticketLine(tickets: TicketCount): string {
  if ('count' in tickets) return `:ticket: ${plural(tickets.count, 'ticket')} filed for this attack.`;
  if ('noIntegration' in tickets) return ':ticket: No tickets: the team has no tracker integration.';
  return `:ticket: Tickets could not be counted: ${tickets.problem}.`;
}

/** `show <guid>` and the card's Details button: the attack and its executions, one per target. */
export function attackDetailsMessage(
  attack: Attack,
  executions: Execution[],
  team: { id: string; name: string },
  appUrl?: string,
  tickets?: TicketCount,
  halt?: HaltProgress,
): Message {
  const type = attack.infra_command?.type ?? 'attack';
  const stage = stageLabel(attack.stage ?? 'Unknown', attack.stage_lifecycle ?? '');
  const stageText = attack.stage ? stageWords(attack.stage) : 'unknown stage';
  const blocks: KnownBlock[] = [
    header(`${type} attack · ${stageText}`),
    fields([
      ['Stage', stage],
      ['Arguments', argsText(attack.args)],
      ['Team', escapeMrkdwn(team.name)],
      ['Created by', escapeMrkdwn(attack.create_user ?? 'unknown')],
      ['Targets', clientsText(attack.total_clients ?? attack.targets.length, isFinished(attack))],
      ['Source', escapeMrkdwn(originText(attack.source, attack.create_source))],
      ['Started', when(attack.start_time ?? attack.created_at)],
      ['Ended', attack.end_time ? when(attack.end_time) : '_still running_'],
    ]),
  ];
  const shown = executions.slice(0, executionsShown);
  if (shown.length) {
    const lines = shown.map((e) => {
      const detail = e.error ?? e.output;
      return `• \`${escapeMrkdwn(e.client_id ?? e.guid ?? 'client')}\` ${stageLabel(e.stage ?? 'Unknown', e.stage_lifecycle ?? '')}${detail ? ` — ${escapeMrkdwn(truncate(detail, 140))}` : ''}`;
    });
    blocks.push(section(`*Executions* (${executions.length})\n${lines.join('\n')}`));
    if (executions.length > shown.length)
      blocks.push(
        context(
          `${plural(executions.length - shown.length, 'more execution')} ${agree(executions.length - shown.length, 'is', 'are')} in the platform.`,
        ),
      );
  } else {
    blocks.push(context('No executions yet: the attack has not reached its targets.'));
  }
  if (halt) blocks.push(section(`*Halt*, sent ${when(halt.haltedAt)}\n${haltReceiptText(halt)}`));
  if (tickets) blocks.push(context(ticketLine(tickets)));
  blocks.push(...notesBlocks(attack.annotations), attackLinkLine(attack.guid, appUrl));
  if (canHalt(attack)) {
    blocks.push(
      actions('attack_details_actions', [
        haltButton({
          guid: attack.guid,
          teamId: team.id,
          kind: attack.target_type === 'Kubernetes' ? 'kubernetes' : 'attack',
        }),
      ]),
    );
  }
  return {
    text: escapeMrkdwn(`${type} attack ${attack.guid}: ${stageText}`),
    blocks,
  };
}
