import type { Button, KnownBlock, SectionBlock } from '@slack/types';
import { canHalt, isFinished } from '../../attacks/lifecycle.ts';
import type { Attack, KubernetesAttack } from '../../client/index.ts';
import type { Message } from '../message.ts';
import { actions, button, code, context, escapeMrkdwn, header, section, slackDate } from '../blocks.ts';
import { argsText, clientsText, haltButton, stageLabel } from './attackCard.ts';
import { haltAllButton } from './halt.ts';

export const LIST_NEXT_PAGE = 'attack_list_next';
/** Attacks per page: one block each, leaving room under Slack's 50 blocks per message. */
export const listPageSize = 20;

export interface ListedAttack {
  guid: string;
  kind: 'attack' | 'kubernetes';
  type: string;
  args: string[];
  stage: string;
  lifecycle: string;
  clients: number | undefined;
  createdBy: string | undefined;
  startedAt: string | undefined;
  active: boolean;
}

/** Halt all has something to do: a row shown can still be halted. */
export const offersHaltAll = (rows: readonly ListedAttack[]): boolean => rows.some((row) => row.active && canHalt(row));

/** An attack as a list shows it. */
export function listed(attack: Attack): ListedAttack {
  return {
    guid: attack.guid,
    kind: 'attack',
    type: attack.infra_command?.type ?? 'attack',
    args: attack.args,
    stage: attack.stage ?? 'Unknown',
    lifecycle: attack.stage_lifecycle ?? '',
    clients: attack.total_clients,
    createdBy: attack.create_user,
    startedAt: attack.start_time ?? attack.created_at,
    active: !isFinished(attack),
  };
}

/** A Kubernetes attack as a list shows it. */
export function listedKubernetes(attack: KubernetesAttack): ListedAttack {
  const cli = attack.impact_definition?.cli_args ?? [];
  return {
    guid: attack.guid,
    kind: 'kubernetes',
    type: cli[0] ?? 'kubernetes',
    args: cli.slice(1),
    stage: attack.stage ?? 'Unknown',
    lifecycle: attack.stage_lifecycle ?? '',
    // As its card counts it: the clients the platform resolved, not the objects named.
    clients: attack.total_clients,
    createdBy: undefined,
    startedAt: attack.created_at,
    active: !isFinished(attack),
  };
}

/** The platform's latest state of a listed attack, as its row shows it. */
export function withListedState(
  row: ListedAttack,
  state: { stage?: string | undefined; stage_lifecycle?: string | undefined; end_time?: string | null | undefined },
): ListedAttack {
  const lifecycle = state.stage_lifecycle ?? (state.end_time ? 'Complete' : row.lifecycle);
  return {
    ...row,
    stage: state.stage ?? row.stage,
    lifecycle,
    active: !isFinished({ stage_lifecycle: lifecycle, end_time: state.end_time ?? undefined }),
  };
}

/** One page of a list, as shown; kept for a while so a halt from one of its rows can redraw it. */
export interface AttackListPage {
  which: 'active' | 'completed';
  teamId: string;
  teamName: string;
  attacks: ListedAttack[];
  nextValue?: string | undefined;
  pageNumber: number;
  filter?: string | undefined;
  /** Set when the page is kept: its Halt buttons carry it. */
  listId?: string | undefined;
  /** What the last action on the page did, shown above its rows. */
  notice?: string | undefined;
  /** Whether the person may halt the team's attacks, and all at once: else no Halt, no Halt all. */
  mayHalt?: boolean | undefined;
  mayHaltAll?: boolean | undefined;
}

/**
 * An attack's row, in a list and on App Home: type, arguments, stage, clients, who and when, and
 * a Halt button while it may be halted.
 */
export function listedRow(
  a: ListedAttack,
  where: { teamId: string; mayHalt?: boolean | undefined; listId?: string | undefined },
): SectionBlock {
  const parts = [`*${escapeMrkdwn(a.type)}* ${argsText(a.args)}`, stageLabel(a.stage, a.lifecycle)];
  if (a.clients !== undefined) parts.push(clientsText(a.clients, !a.active));
  if (a.createdBy) parts.push(`by ${escapeMrkdwn(a.createdBy)}`);
  if (a.startedAt && !Number.isNaN(Date.parse(a.startedAt))) parts.push(slackDate(new Date(a.startedAt)));
  return section(
    `${parts.join(' · ')}\n${code(a.guid)}${a.kind === 'kubernetes' ? ' · Kubernetes' : ''}`,
    a.active && canHalt(a) && where.mayHalt !== false
      ? { accessory: haltButton({ guid: a.guid, teamId: where.teamId, kind: a.kind, listId: where.listId }) }
      : {},
  );
}

export function attackListMessage(page: AttackListPage): Message {
  const title = `${page.which === 'active' ? 'Active' : 'Completed'} ${page.filter ? '' : 'ad-hoc '}attacks · ${page.teamName}`;
  const blocks: KnownBlock[] = [header(title)];
  if (page.notice) blocks.push(section(page.notice));
  if (!page.attacks.length) {
    blocks.push(
      section(
        page.pageNumber === 1
          ? `No ${page.which} attacks${page.filter ? ` (${page.filter})` : ''} in team *${escapeMrkdwn(page.teamName)}*.`
          : 'No more attacks.',
      ),
    );
  }
  for (const a of page.attacks.slice(0, listPageSize))
    blocks.push(listedRow(a, { teamId: page.teamId, mayHalt: page.mayHalt, listId: page.listId }));
  const footer: Button[] = [];
  if (page.nextValue) footer.push(button('Next page', LIST_NEXT_PAGE, { value: page.nextValue }));
  if (page.mayHaltAll !== false && offersHaltAll(page.attacks)) footer.push(haltAllButton());
  // A page number only where there is more than one page.
  const pageWords = page.pageNumber > 1 || page.nextValue ? [`Page ${page.pageNumber}`] : [];
  const filterWords = page.filter
    ? escapeMrkdwn(page.filter)
    : 'Scenario attacks: add `--source Scenario`; Kubernetes attacks: `--k8s`';
  blocks.push(context([...pageWords, filterWords].join(' · ')));
  if (footer.length) blocks.push(actions('attack_list_actions', footer));
  return { text: escapeMrkdwn(`${title}: ${page.attacks.length} on page ${page.pageNumber}`), blocks };
}
