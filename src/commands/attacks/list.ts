import { randomUUID } from 'node:crypto';
import type { HaltOutcome } from '../../attacks/halt.ts';
import type { Services } from '../../services.ts';
import { canHalt, haltSentState } from '../../attacks/lifecycle.ts';
import {
  attackListMessage,
  listed,
  listedKubernetes,
  listPageSize,
  withListedState,
  type AttackListPage,
} from '../../views/attacks/attackList.ts';
import { replacement, type Action, type Reply, subcommand } from '../command.ts';
import { z } from 'zod';
import { contract, flag } from '../contract.ts';
import { escapeMrkdwn } from '../../views/blocks.ts';
import { UserInputError } from '../../errors.ts';
import type { Actor } from '../../store/sessions.ts';
import { mayHalt, mayHaltAll, teamName } from '../../attacks/access.ts';

const usage = 'list [active|completed] [--source Adhoc|Scenario] [--k8s]';

/** What a list shows and where it is; the Next button carries this (plus the position). */
interface ListQuery {
  which: 'active' | 'completed';
  source: 'Adhoc' | 'Scenario' | undefined;
  k8s: boolean;
  teamId: string | undefined;
  /** The platform's page token (paged endpoints) or an offset (lists the platform does not page). */
  pageToken?: string | undefined;
  offset?: number | undefined;
  pageNumber: number;
}

/**
 * Keeps a page that has Halt buttons, so a halt from it can redraw it: Slack does not send back
 * the content of an ephemeral message. A page that cannot be kept is shown all the same.
 */
async function keepPage(deps: Services, page: AttackListPage): Promise<AttackListPage> {
  if (page.mayHalt === false || !page.attacks.some((a) => a.active && canHalt(a))) return page;
  const kept = { ...page, listId: randomUUID() };
  try {
    await deps.attacks.keepListPage(kept);
    return kept;
  } catch (error) {
    deps.logger.warn({ err: error }, 'could not keep a list page; a halt from it will not redraw it');
    return page;
  }
}

export async function listReply(
  deps: Services,
  actor: Actor,
  query: ListQuery,
  replaceOriginal: boolean,
): Promise<Reply> {
  const login = await deps.login.require(actor);
  const read = await deps.attacks.listPage(login, query.teamId, { ...query, pageSize: listPageSize });
  const { team, next } = read;
  const attacks = 'kubernetes' in read ? read.kubernetes.map(listedKubernetes) : read.attacks.map(listed);
  const filter =
    [query.source && `source ${query.source}`, query.k8s && 'Kubernetes'].filter(Boolean).join(', ') || undefined;
  const nextValue = next
    ? JSON.stringify({
        ...query,
        pageToken: undefined,
        offset: undefined,
        ...next,
        teamId: team.identifier,
        pageNumber: query.pageNumber + 1,
      })
    : undefined;
  const page = await keepPage(deps, {
    which: query.which,
    teamId: team.identifier,
    teamName: teamName(team),
    attacks,
    nextValue,
    pageNumber: query.pageNumber,
    filter,
    mayHalt: mayHalt(team),
    mayHaltAll: mayHaltAll(login),
  });
  return { kind: 'message', replaceOriginal, message: attackListMessage(page) };
}

/**
 * The list a Halt was clicked in, drawn again: the halted row in its new state (without its Halt
 * button once halting or ended) and what the halt did above the rows. Undefined when the page
 * is no longer kept; the halt is then answered on its own.
 */
export async function redrawListAfterHalt(
  deps: Services,
  listId: string,
  outcome: HaltOutcome,
  notice: string,
): Promise<Reply | undefined> {
  // A halt the platform took but could not be read back is halting all the same.
  const state = outcome.state ?? (outcome.result === 'halted' || outcome.result === 'halting' ? haltSentState : {});
  const next = await deps.attacks.changeListPage<AttackListPage & { listId: string }>(listId, (page) => ({
    ...page,
    notice,
    attacks: page.attacks.map((row) => (row.guid === outcome.guid ? withListedState(row, state) : row)),
  }));
  if (!next) return undefined;
  const { text, blocks } = attackListMessage(next);
  return replacement(text, blocks);
}

const notActiveOrCompleted = (word: unknown) =>
  `List “active” or “completed” attacks, not “${escapeMrkdwn(String(word))}”.`;

const listArgs = contract({
  command: 'list',
  usage,
  words: {
    which: z
      .string()
      .optional()
      .transform((word) => (word ?? 'active').toLowerCase())
      .pipe(z.enum(['active', 'completed'], { error: (issue) => notActiveOrCompleted(issue.input) })),
  },
  rest: z.array(z.string()).max(0, { error: (issue) => notActiveOrCompleted((issue.input as string[]).join(' ')) }),
  flags: {
    source: flag.read(
      'Adhoc or Scenario',
      z
        .string()
        .transform((word) => word.toLowerCase())
        .pipe(z.enum(['adhoc', 'scenario']))
        .transform((word) => (word === 'adhoc' ? 'Adhoc' : 'Scenario')),
    ),
    k8s: flag.switch(),
  },
});

export const listCommand = subcommand({
  name: 'list',
  usage,
  summary: 'Lists the attacks of your team, a page at a time, with a Halt button on each active one.',
  examples: ['list', 'list completed', 'list active --source Scenario', 'list --k8s'],
  args: listArgs,
  async run(request, { words, flags }, deps) {
    return listReply(
      deps,
      request.actor,
      { which: words.which, source: flags.source, k8s: flags.k8s === true, teamId: undefined, pageNumber: 1 },
      false,
    );
  },
});

/** The Next page button: the same list from where the previous page stopped, in place. */
export async function nextListPage(action: Action, deps: Services): Promise<Reply> {
  let query: ListQuery;
  try {
    query = JSON.parse(action.value ?? '') as ListQuery;
  } catch {
    throw new UserInputError('That list has expired; run `list` again.');
  }
  return listReply(deps, action.actor, query, true);
}
