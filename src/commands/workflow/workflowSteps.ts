import { z } from 'zod';
import type { Services } from '../../services.ts';
import type { WorkflowStepHandler, WorkflowStepRequest, WorkflowStepResult } from '../command.ts';
import { UserInputError } from '../../errors.ts';
import { teamName } from '../../attacks/access.ts';
import {
  stepGuardsUnknownText,
  stepSavedNameMissingText,
  stepFreezeHaltFailedText,
  stepGameDayChannelText,
  stepGameDayRunningText,
  stepGameDayStartingText,
  stepHaltIncompleteText,
  stepNoGameDayText,
  stepOtherGameDayText,
  stepReasonMissingText,
  stepReasonTooLongText,
  stepScopeBothText,
  stepTitleMissingText,
} from '../../views/workflow/workflowSteps.ts';
import { announceFreeze, announceLift, scopeOf } from '../guardrails/freeze.ts';
import type { Scope } from '../../guardrails/freezes.ts';
import { endNow, requireGameDayTeam, requireMayEnd } from '../gamedays/gamedayEnd.ts';
import { matchTeam } from '../arguments.ts';
import { resolveTeam } from '../attacks/attack.ts';
import { savedAttackRequest } from '../attacks/saved.ts';
import { StartUnfinishedError } from '../../attacks/start.ts';
import { GuardsUnknownError } from '../../guardrails/guards.ts';
import {
  END_GAME_DAY_STEP,
  FREEZE_STEP,
  HALT_ALL_STEP,
  RUN_SAVED_ATTACK_STEP,
  START_GAME_DAY_STEP,
  UNFREEZE_STEP,
} from '../../workflow/service.ts';

/** Empty text inputs count as not given: Workflow Builder sends "" for a field left blank. */
const optionalText = z.preprocess(
  (value) => (typeof value === 'string' && value.trim() === '' ? undefined : value),
  z.string().trim().optional(),
);
const reason = z
  .string({ error: stepReasonMissingText })
  .transform((words) => words.replace(/\s+/g, ' ').trim())
  .pipe(z.string().min(1, stepReasonMissingText).max(300, stepReasonTooLongText));
const scopeInputs = { team: optionalText, all_teams: z.boolean().optional() };

/** Reads a step's inputs; what does not fit is refused in the words of the schema. */
function read<T extends z.ZodRawShape>(shape: T, inputs: Record<string, unknown>): z.infer<z.ZodObject<T>> {
  const parsed = z.object(shape).safeParse(inputs);
  if (!parsed.success) throw new UserInputError(parsed.error.issues[0]?.message ?? stepReasonMissingText);
  return parsed.data;
}

const scopeOfInputs = (
  input: { team?: string | undefined; all_teams?: boolean | undefined },
  login: Parameters<typeof scopeOf>[1],
): Scope => {
  if (input.all_teams && input.team !== undefined) throw new UserInputError(stepScopeBothText);
  return scopeOf({ ...(input.all_teams ? { all: true as const } : {}), team: input.team }, login, '');
};

/** Halt all chaos attacks: every attack the person reaches, or one team's, with their session. */
async function haltAllStep({ actor, inputs }: WorkflowStepRequest, deps: Services): Promise<WorkflowStepResult> {
  const input = read({ team: optionalText, reason }, inputs);
  const login = await deps.login.require(actor);
  if (input.team === undefined) {
    const { attacks } = deps;
    const outcome = await attacks.haltAll(actor, undefined, input.reason);
    const ids = outcome.halted.map((a) => a.guid);
    return { outputs: { halted_count: ids.length, halted_ids: ids } };
  }
  const team = matchTeam(login.session.teams, input.team, '');
  const swept = await deps.guardrails.haltTeam(actor, login, team, input.reason);
  if (swept.failed.length || swept.unread.length) {
    return {
      error: stepHaltIncompleteText(
        teamName(team),
        swept.halted.length,
        swept.failed.map((a) => a.guid),
        swept.unread.length > 0,
        deps.command,
      ),
    };
  }
  const ids = swept.halted.map((a) => a.guid);
  return { outputs: { halted_count: ids.length, halted_ids: ids } };
}

/** Freeze chaos: declares the freeze, halts what runs there, and says how many it halted. */
async function freezeStep({ actor, inputs }: WorkflowStepRequest, deps: Services): Promise<WorkflowStepResult> {
  const input = read({ ...scopeInputs, reason }, inputs);
  const login = await deps.login.require(actor);
  const scope = scopeOfInputs(input, login);
  // Done once per run of the step: the adapter's claim on its execution sees to that.
  const declared = await deps.guardrails.freeze(actor, login, scope, input.reason);
  await announceFreeze(deps, actor, declared);
  const { freeze, halting } = declared;
  const failed =
    'error' in halting || (halting.scope === 'team' && (halting.swept.failed.length || halting.swept.unread.length));
  // The freeze stands either way; a halt that did not happen must not pass unseen.
  if (failed) return { error: stepFreezeHaltFailedText(actor.userId, freeze, halting, deps.command) };
  return {
    outputs: {
      scope: freeze.scope,
      team: freeze.teamName ?? '',
      since: freeze.since,
      // Every output the manifest requires: for every team, the live attacks Faultline followed,
      // since the platform's halt of everything does not say how many it halted.
      halted_count: halting.scope === 'all' ? halting.followed : 'swept' in halting ? halting.swept.halted.length : 0,
    },
  };
}

/** Unfreeze chaos: lifts the freeze of the scope; nothing to lift is no failure. */
async function unfreezeStep({ actor, inputs }: WorkflowStepRequest, deps: Services): Promise<WorkflowStepResult> {
  const input = read({ ...scopeInputs, reason: optionalText }, inputs);
  const login = await deps.login.require(actor);
  const scope = scopeOfInputs(input, login);
  const lifted = await deps.guardrails.unfreeze(actor, login, scope);
  await announceLift(deps, actor, lifted);
  return {
    outputs: {
      scope: scope.scope,
      team: scope.scope === 'team' ? teamName(scope.team) : '',
      was_frozen: lifted.freeze !== undefined,
    },
  };
}

const gameDayInputs = { channel: z.string().min(1), title: optionalText };

/** Start game day: in the channel given, facilitated by the person. */
async function startGameDayStep({ actor, inputs }: WorkflowStepRequest, deps: Services): Promise<WorkflowStepResult> {
  const input = read(gameDayInputs, inputs);
  if (input.title === undefined || input.title.length > 150) throw new UserInputError(stepTitleMissingText);
  const others = deps.attacks.otherChannels(input.channel);
  if (others) return { error: stepGameDayChannelText(input.channel, others) };
  // As `gameday start`: run by someone who may run attacks in their selected team.
  const team = await requireGameDayTeam(deps, actor);
  const { outcome, record } = await deps.gamedays.days.start(input.channel, input.title, actor.userId, {
    id: team.identifier,
    name: teamName(team),
  });
  if (outcome === 'starting') return { error: stepGameDayStartingText };
  if (outcome === 'running') return { error: stepGameDayRunningText(input.channel, record!.title) };
  return { outputs: { game_day_id: record!.id } };
}

/** End game day: ends the channel's game day; attacks still running are followed by its summary. */
async function endGameDayStep({ actor, inputs }: WorkflowStepRequest, deps: Services): Promise<WorkflowStepResult> {
  const input = read(gameDayInputs, inputs);
  await deps.login.require(actor);
  const record = await deps.gamedays.days.running(input.channel);
  if (!record) return { error: stepNoGameDayText(input.channel) };
  if (input.title !== undefined && input.title.toLowerCase() !== record.title.toLowerCase())
    return { error: stepOtherGameDayText(input.channel, record.title) };
  // As `gameday end`: the facilitator, or someone who could halt the game day's team.
  await requireMayEnd(deps, actor, record);
  await endNow(deps, actor, input.channel);
  return { outputs: { game_day_id: record.id } };
}

/**
 * Run saved attack: the team's saved attack, read again and started in the channel given, with
 * the person's session, exactly as `run <name> --yes`: only a version the person has seen, a
 * freeze or an unhealthy guard refuses it, and an approval rule asks a second person, whose
 * answer finishes the step. With `wait_for_end`, the step completes once the attack has ended,
 * with its final stage.
 */
async function runSavedAttackStep(
  { actor, inputs, executionId }: WorkflowStepRequest,
  deps: Services,
): Promise<WorkflowStepResult> {
  const input = read(
    {
      name: z.string().trim().min(1, stepSavedNameMissingText),
      team: optionalText,
      channel: z.string().min(1),
      wait_for_end: z.boolean().optional(),
    },
    inputs,
  );
  const login = await deps.login.require(actor);
  const team = resolveTeam(login, input.team, '');
  const { saved, request } = await savedAttackRequest(deps, login, team, input.name, {
    kind: 'unattended',
    by: actor,
  });
  // Run by them, it stays theirs to run: a schedule that runs it keeps it seen.
  await deps.attacks.sawSaved(saved, actor);
  const waitForEnd = input.wait_for_end === true;
  let guid: string;
  try {
    const outcome = await deps.attacks.start(
      { actor, login, team, request, channel: input.channel },
      { kind: 'workflow step', step: { executionId, waitForEnd } },
    );
    // A second person's answer finishes the step.
    if (outcome.kind === 'approval requested') return { later: true };
    guid = outcome.started.guid;
  } catch (error) {
    // Started, but its card is not posted yet: the attack runs, and the card follows.
    if (error instanceof StartUnfinishedError) guid = error.guid;
    else if (error instanceof GuardsUnknownError) return { error: stepGuardsUnknownText(error) };
    else throw error;
  }
  if (!waitForEnd) return { outputs: { attack_id: guid } };
  await deps.workflow.waitForEnd(executionId, guid);
  return { later: true };
}

/** Every custom step Faultline answers, by callback id (each is declared in manifest.yml). */
export const steps: Record<string, WorkflowStepHandler> = {
  [HALT_ALL_STEP]: haltAllStep,
  [FREEZE_STEP]: freezeStep,
  [UNFREEZE_STEP]: unfreezeStep,
  [START_GAME_DAY_STEP]: startGameDayStep,
  [END_GAME_DAY_STEP]: endGameDayStep,
  [RUN_SAVED_ATTACK_STEP]: runSavedAttackStep,
};
