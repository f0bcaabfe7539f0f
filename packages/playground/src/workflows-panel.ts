/**
 * The page's Workflows panel: runs the app's Workflow Builder steps (the custom steps its
 * manifest declares) as the person chosen in "Acting as" used the workflow: Slack fills each
 * user-context input with that person, as it does "Person who used this workflow", and shows how
 * each run ended.
 */
import { type FakeSlack, type StepExecution, USER_CONTEXT } from '@faultline/fake-slack';
import { z } from 'zod';
import { PlaygroundError } from './actions.ts';

export interface StepForm {
  callbackId: string;
  title: string;
  description: string;
  inputs: Array<{ name: string; type: string; title: string; description: string; required: boolean }>;
}

export interface WorkflowStepRun {
  id: string;
  title: string;
  person: string;
  state: StepExecution['state'];
  outputs: Record<string, unknown> | undefined;
  error: string | undefined;
}

export const workflowBodies = {
  run: z.object({
    person: z.string(),
    step: z.string(),
    inputs: z.record(z.string(), z.union([z.string().max(1_000), z.boolean()])).default({}),
  }),
};

/** The steps the app declares, with the inputs a person fills in. */
export function stepForms(fake: FakeSlack): StepForm[] {
  return [...fake.steps].map(([callbackId, step]) => ({
    callbackId,
    title: step.title,
    description: step.description,
    inputs: Object.entries(step.input_parameters)
      // Slack fills a user context in itself; Workflow Builder shows no field for it.
      .filter(([, parameter]) => parameter.type !== USER_CONTEXT)
      .map(([name, parameter]) => ({
        name,
        type: parameter.type,
        title: parameter.title ?? name,
        description: parameter.description ?? '',
        required: parameter.is_required === true,
      })),
  }));
}

/**
 * A step's error as Workflow Builder shows it to people: `<#C…>` as `#gameday` and `<@U…>` as
 * `@alice`, by `names` (ids to names), and an id nobody here has as the id.
 */
export function namedMentions(error: string, names: ReadonlyMap<string, string>): string {
  return error.replace(
    /<([#@])([A-Z0-9]+)(?:\|([^>]*))?>/g,
    (_, sigil: string, id: string, label: string | undefined) => `${sigil}${label || (names.get(id) ?? id)}`,
  );
}

/** The last runs, newest first; `names` maps the people's and channels' ids to their names. */
export function stepRuns(fake: FakeSlack, names: ReadonlyMap<string, string>, limit = 10): WorkflowStepRun[] {
  return fake
    .stepExecutions()
    .slice(-limit)
    .reverse()
    .map((run) => ({
      id: run.id,
      title: fake.steps.get(run.callbackId)?.title ?? run.callbackId,
      person: run.usedBy ?? '',
      state: run.state,
      outputs: run.outputs,
      error: run.error === undefined ? undefined : namedMentions(run.error, names),
    }));
}

/**
 * Runs a step as `personId` used the workflow: the form's text turned into the declared types,
 * blank fields left out as Workflow Builder leaves them; the fake Slack fills the person in.
 */
export async function runStep(fake: FakeSlack, personId: string, body: unknown): Promise<{ id: string }> {
  const { step, inputs } = workflowBodies.run.parse(body);
  const definition = fake.steps.get(step);
  if (definition === undefined) throw new PlaygroundError(404, 'The app has no such workflow step.');
  const values: Record<string, unknown> = {};
  for (const [name, value] of Object.entries(inputs)) {
    const parameter = definition.input_parameters[name];
    if (parameter === undefined || parameter.type === USER_CONTEXT)
      throw new PlaygroundError(400, `The step “${definition.title}” has no input ${name}.`);
    if (parameter.type === 'boolean') {
      if (value === true || value === 'true') values[name] = true;
      continue;
    }
    const text = String(value).trim();
    if (text === '') continue;
    if (parameter.type === 'integer' || parameter.type === 'number') {
      if (!Number.isFinite(Number(text)))
        throw new PlaygroundError(400, `${parameter.title ?? name} must be a number.`);
      values[name] = Number(text);
    } else values[name] = text;
  }
  for (const [name, parameter] of Object.entries(definition.input_parameters))
    if (parameter.is_required === true && parameter.type !== USER_CONTEXT && values[name] === undefined)
      throw new PlaygroundError(400, `Fill in ${parameter.title ?? name}.`);
  const run = await fake.runStep(step, values, { usedBy: personId });
  return { id: run.id };
}
