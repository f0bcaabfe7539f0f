import {
  type Integration,
  BadRequestError,
  BusyError,
  ForbiddenError,
  InvalidIdError,
  InvalidResponseError,
  NoIntegrationError,
  NotFoundError,
  RateLimitedError,
  ServerError,
  TimeoutError,
  UnauthorizedError,
  UnreachableError,
} from '../client/errors.ts';
import { detailsOf, NoTeamSelectedError, NotLoggedInError, UserInputError } from '../errors.ts';
import { type Message, textMessage } from './message.ts';
import { StoreUnavailableError } from '../store/errors.ts';
import { loginPromptBlocks } from './login/login.ts';
import { escapeMrkdwn, plural, slackDate } from './blocks.ts';
import { type Freeze, FrozenError, HaltPrivilegeError } from '../guardrails/freezes.ts';
import { StartUnfinishedError } from '../attacks/start.ts';
import { NotARequestError } from '../guardrails/approvals.ts';
import { StepNotAllowedError } from '../gamedays/planStepState.ts';
import { planWords } from './gamedays/planWords.ts';
import { AmbiguousAttackIdError, AttackNotFoundError } from '../attacks/access.ts';
import { GuardsUnknownError, MissingGuardsError, UnhealthyGuardsError } from '../guardrails/guards.ts';
import { stageWords } from './attacks/attackCard.ts';
import { guardRefusalText } from './guardrails/guards.ts';
import { NoTargetsError, TargetsDriftedError } from '../attacks/blastRadius.ts';
import { targetsDriftedText } from './attacks/blastRadius.ts';
import { noTargetsText } from './attacks/attackPreview.ts';

export interface ErrorContext {
  /** The slash command, e.g. `/chaos`, for "try …" hints. */
  command: string;
  /** Name of the team the call ran against, when there was one. */
  team?: string | undefined;
  /** What was being done, in words: "halt the attack", "start the attack". */
  doing?: string | undefined;
  /** What a 404 was about: "attack 6f1c…". */
  subject?: string | undefined;
  /** The subcommand that shows whether something with an unknown outcome happened (default `list`). */
  check?: string | undefined;
}

/** A refusal's words: the domain's refusals carry what refused, input errors their own words. */
function refusalText(error: UserInputError, command: string): string {
  if (error instanceof FrozenError) return frozenRefusal(error.freeze, command);
  if (error instanceof HaltPrivilegeError) return haltPrivilegeText(error);
  if (
    error instanceof UnhealthyGuardsError ||
    error instanceof GuardsUnknownError ||
    error instanceof MissingGuardsError
  )
    return guardRefusalText(error);
  if (error instanceof AttackNotFoundError) return attackNotFoundText(error);
  if (error instanceof NoTargetsError) return noTargetsText(error);
  if (error instanceof TargetsDriftedError) return targetsDriftedText(error);
  if (error instanceof AmbiguousAttackIdError) return ambiguousIdText(error);
  if (error instanceof NotARequestError) return 'That button no longer points at a request.';
  if (error instanceof StepNotAllowedError) return planWords.notAllowed(error.teamName, error.inTeam, command);
  return error.message;
}

// How a freeze is named, down to the refusal of a start under it: the refusals above read these,
// and the freeze's announcements and notices (guardrails/freeze.ts) and status build on them.

/** "Payments" or "every team". */
export function freezeScopeText(freeze: Pick<Freeze, 'scope' | 'teamName' | 'teamId'>): string {
  return freeze.scope === 'all' ? 'every team' : `*${escapeMrkdwn(freeze.teamName ?? freeze.teamId ?? 'a team')}*`;
}

/** "frozen by @x since 14:02: reason", as previews, refusals, Home and status show it. */
export function frozenLine(freeze: Freeze): string {
  const since = Number.isNaN(Date.parse(freeze.since)) ? '' : ` since ${slackDate(new Date(freeze.since), '{time}')}`;
  return `frozen by <@${freeze.by.userId}>${since}: ${escapeMrkdwn(freeze.reason)}`;
}

/** The refusal of a start in a frozen scope, with the way out. */
export function frozenRefusal(freeze: Freeze, command: string): string {
  const unfreeze =
    freeze.scope === 'all'
      ? `${command} unfreeze --all`
      : `${command} unfreeze --team ${freeze.teamName ?? freeze.teamId}`;
  return `:snowflake: Attacks in ${freezeScopeText(freeze)} are ${frozenLine(freeze)}. Nothing was started. When it is safe again, \`${escapeMrkdwn(unfreeze)}\` lifts the freeze.`;
}

/** Why a person may not freeze or lift a freeze there: their role lacks the halt privilege. */
export function haltPrivilegeText({ doing, teamName }: HaltPrivilegeError): string {
  if (teamName === undefined)
    return `You cannot ${doing} every team: your platform role lacks the \`HALT_ALL\` privilege in your company. Ask a company owner or admin, or name one team with --team.`;
  const name = `*${escapeMrkdwn(teamName)}*`;
  return `You cannot ${doing} ${name}: your platform role lacks the \`HALT_WRITE\` privilege on team ${name}. Ask an owner of the team for a role that has it.`;
}

function attackNotFoundText({ guid, searched, teams }: AttackNotFoundError): string {
  if (!teams) return 'Your platform login belongs to no team, so it can reach no attack.';
  const where =
    searched.length === 1
      ? `team ${searched[0]}`
      : `any of your ${searched.length} ${searched.length < teams ? 'first teams' : 'teams'}`;
  return `The platform has no attack \`${guid}\` that you can read in ${where}. Check the id.`;
}

/** How many attacks a short id that matches several names, at most. */
const ambiguousShown = 10;

function ambiguousIdText({ typed, matches }: AmbiguousAttackIdError): string {
  const lines = matches
    .slice(0, ambiguousShown)
    .map(
      (m) =>
        `• \`${m.guid}\` ${[m.type ? escapeMrkdwn(m.type) : undefined, `team ${escapeMrkdwn(m.teamName)}`, m.stage ? stageWords(m.stage) : undefined].filter(Boolean).join(' · ')}`,
    );
  if (matches.length > ambiguousShown) lines.push(`and ${matches.length - ambiguousShown} more.`);
  return `\`${escapeMrkdwn(typed)}\` begins the ids of ${matches.length} attacks, so nothing was done. Type more of the id:\n${lines.join('\n')}`;
}

/**
 * The one place that turns any failure into the words a person sees. Nothing here repeats a
 * response body, a token or a stack trace; each message says what happened and what to do next.
 */
export function describeError(error: unknown, context: ErrorContext): Message {
  const ctx = { ...context, ...detailsOf(error) };
  const cmd = ctx.command;
  const doing = ctx.doing ?? 'do that';
  if (error instanceof StartUnfinishedError) {
    // Before the store's words: something was done, and a second try would start a second attack.
    return textMessage(
      `:rocket: Your attack \`${error.guid}\` started, but Faultline could not post its card yet. The card follows, with a direct message, once Faultline can; \`${cmd} halt ${error.guid}\` halts it now.`,
    );
  }
  if (error instanceof StoreUnavailableError) {
    // Before anything else: a store that cannot be asked must never read as "log in".
    return textMessage(
      'Faultline cannot reach its store; nothing was done. Try again in a minute; if it keeps failing, tell whoever runs Faultline.',
    );
  }
  if (error instanceof UserInputError) {
    const words = refusalText(error, cmd);
    return textMessage(error.usage ? `${words}\nUsage: \`${cmd} ${error.usage}\`` : words);
  }
  if (error instanceof NotLoggedInError) {
    const words = error.expired
      ? 'Your platform session has expired. Log in again to continue.'
      : `You are not logged in to the platform. Log in to ${doing}.`;
    return { text: words, blocks: loginPromptBlocks(words) };
  }
  if (error instanceof NoTeamSelectedError) {
    return textMessage(`Choose a team first with \`${cmd} team\`.`);
  }
  if (error instanceof UnauthorizedError) {
    const words = 'The platform no longer accepts your session (it expired or was ended). Log in again to continue.';
    return { text: words, blocks: loginPromptBlocks(words) };
  }
  if (error instanceof ForbiddenError) {
    if (error.httpsRequired)
      return textMessage(
        'The platform refused to log in over plain HTTP. Whoever runs Faultline must set PLATFORM_API_URL to an https: address.',
      );
    const where = ctx.team ? ` on team *${escapeMrkdwn(ctx.team)}*` : ' in your company';
    const missing = error.privilege ? `the \`${error.privilege}\` privilege${where}` : `the privilege needed${where}`;
    return textMessage(
      `You cannot ${doing}: your platform role lacks ${missing}. Ask a team or company owner for a role that has it.`,
    );
  }
  if (error instanceof InvalidIdError) {
    return textMessage('That id is not valid, so nothing was sent to the platform. Check the id and try again.');
  }
  if (error instanceof NoIntegrationError) {
    return textMessage(missingIntegrationText(error.integration));
  }
  if (error instanceof NotFoundError) {
    const what = ctx.subject ? ` ${ctx.subject}` : ' what you asked for';
    return textMessage(
      `The platform has no${what}${ctx.team ? ` in team *${escapeMrkdwn(ctx.team)}*` : ''}. Check the id, or the team with \`${cmd} whoami\`.`,
    );
  }
  if (error instanceof RateLimitedError) {
    const seconds = error.retryAfterMs ? Math.max(1, Math.ceil(error.retryAfterMs / 1000)) : undefined;
    return textMessage(
      `The platform is busy and asked Faultline to slow down. Try again${seconds ? ` in ${plural(seconds, 'second')}` : ' in a moment'}.`,
    );
  }
  if (error instanceof BusyError) {
    return textMessage(
      `The platform is slow to answer and Faultline already has many calls waiting on it, so it did not ${doing}; nothing was sent. Try again in a minute.`,
    );
  }
  if (error instanceof TimeoutError || (error instanceof UnreachableError && error.outcomeUnknown)) {
    if (error.outcomeUnknown) {
      return textMessage(
        `The platform did not confirm in time, so it is not known whether it did ${doing}. Check with \`${cmd} ${ctx.check ?? 'list'}\` before trying again.`,
      );
    }
    return textMessage(`The platform did not answer in time, so Faultline could not ${doing}. Try again in a moment.`);
  }
  if (error instanceof UnreachableError) {
    return textMessage(
      `Faultline could not reach the platform, so it could not ${doing}. Try again shortly; if it keeps failing, tell whoever runs Faultline.`,
    );
  }
  if (error instanceof ServerError) {
    return textMessage(
      `The platform failed while trying to ${doing}. Try again in a minute; if it keeps failing, check the platform's status.`,
    );
  }
  if (error instanceof BadRequestError) {
    return textMessage(
      `The platform rejected the request to ${doing} as invalid. Check the values and try again (\`${cmd} help\` shows the usage).`,
    );
  }
  if (error instanceof InvalidResponseError) {
    return textMessage(
      `The platform answered in a way Faultline could not read, so it could not ${doing}. Tell whoever runs Faultline.`,
    );
  }
  return textMessage(
    `Something went wrong in Faultline while trying to ${doing}. It has been logged; try again, and tell whoever runs Faultline if it keeps happening.`,
  );
}

const missingIntegrationBrief: Record<Integration | 'unknown', string> = {
  tracker: 'the company has no issue-tracker integration',
  monitoringA: 'the company has no monitoringA integration by that name and domain',
  monitoringB: 'the company has no monitoringB integration at that URI',
  unknown: 'the company lacks the platform integration this needs',
};

/** A 404 `No integration exists`, naming the integration that is missing and what it stops. */
export function missingIntegrationText(integration: Integration | undefined): string {
  switch (integration) {
    case 'tracker':
      return "Your company has no issue-tracker integration on the platform, so tickets cannot be filed or listed from here. A company admin can add one in the platform's integration settings.";
    case 'monitoringA':
      return "Your company has no monitoringA integration on the platform by that name and domain, so its monitors cannot be read. Check the integration name and domain, or ask a company admin to add the integration in the platform's integration settings.";
    case 'monitoringB':
      return "Your company has no monitoringB integration on the platform at that URI, so its alerts cannot be read. Check the URI, or ask a company admin to add the integration in the platform's integration settings.";
    default:
      return "Your company lacks the platform integration this needs. A company admin can add it in the platform's integration settings.";
  }
}

/** Whether a failed create may have happened all the same (the platform did not confirm in time). */
export function outcomeUnknown(error: unknown): boolean {
  return (error instanceof TimeoutError || error instanceof UnreachableError) && error.outcomeUnknown;
}

/**
 * The same failures as describeError, as a short clause about what happened rather than a reply
 * to the person: for a record others read later, such as a game day's timeline and summary.
 */
export function errorInBrief(
  error: unknown,
  context: Pick<ErrorContext, 'team' | 'subject'> & { command?: string | undefined } = {},
): string {
  const ctx = { ...context, ...detailsOf(error) };
  const onTeam = ctx.team ? ` on team *${escapeMrkdwn(ctx.team)}*` : '';
  if (error instanceof StoreUnavailableError) return 'Faultline could not reach its store';
  if (error instanceof UserInputError) return refusalText(error, context.command ?? '/chaos');
  if (error instanceof NotLoggedInError || error instanceof UnauthorizedError) return 'the platform session had ended';
  if (error instanceof ForbiddenError)
    return `the platform role lacks ${error.privilege ? `the \`${error.privilege}\` privilege` : 'the privilege needed'}${onTeam}`;
  if (error instanceof NoIntegrationError) return missingIntegrationBrief[error.integration ?? 'unknown'];
  if (error instanceof NotFoundError) return `the platform has no ${ctx.subject ?? 'such thing'}${onTeam}`;
  if (error instanceof RateLimitedError) return 'the platform was busy and asked Faultline to slow down';
  if (error instanceof BusyError)
    return 'the platform was slow and too many calls were waiting on it; nothing was sent';
  if (outcomeUnknown(error)) return 'the platform did not confirm in time, so it may have started';
  if (error instanceof TimeoutError) return 'the platform did not answer in time';
  if (error instanceof UnreachableError) return 'Faultline could not reach the platform';
  if (error instanceof ServerError) return 'the platform failed while handling it';
  if (error instanceof BadRequestError) return 'the platform rejected the request as invalid';
  if (error instanceof InvalidResponseError) return 'the platform answered in a way Faultline could not read';
  return 'something went wrong in Faultline (it is in the log)';
}
