import { randomBytes } from 'node:crypto';
import type { Violation } from './limits.ts';
import { slackId } from './workspace.ts';

/** One parameter of a custom step, as manifest.yml declares it under `functions`. */
export interface StepParameter {
  type: string;
  title?: string;
  description?: string;
  is_required?: boolean;
  items?: { type: string };
  [key: string]: unknown;
}

/** A custom step as manifest.yml declares it: `functions.<callback_id>`. */
export interface StepDefinition {
  title: string;
  description: string;
  input_parameters: Record<string, StepParameter>;
  output_parameters: Record<string, StepParameter>;
}

/** One run of a custom step in a workflow, from function_executed to its completion. */
export interface StepExecutionRecord {
  id: string;
  callbackId: string;
  definition: StepDefinition;
  inputs: Record<string, unknown>;
  /** The person who used the workflow, whose user context Slack passed. */
  usedBy: string | undefined;
  /** The workflow token Slack hands the app with the event (`bot_access_token`). */
  token: string;
  state: 'running' | 'completed' | 'failed';
  outputs?: Record<string, unknown>;
  error?: string;
  /** Every functions.complete* call made for it, accepted or not. */
  completions: number;
}

const USER_ID = /^[UW][A-Z0-9]+$/;
const CHANNEL_ID = /^[CGD][A-Z0-9]+$/;
/** The input type Slack fills with the person who used the workflow; a builder cannot set it. */
export const USER_CONTEXT = 'slack#/types/user_context';

/** A user context as Slack passes one: the person's id, and Slack's secret vouching for it. */
function isUserContext(value: unknown): boolean {
  if (value === null || typeof value !== 'object' || Array.isArray(value)) return false;
  const { id, secret } = value as Record<string, unknown>;
  return typeof id === 'string' && USER_ID.test(id) && typeof secret === 'string' && secret !== '';
}

/** Whether a value has a parameter's type, as Slack checks inputs and outputs. */
function hasType(value: unknown, parameter: StepParameter): boolean {
  switch (parameter.type) {
    case 'string':
    case 'slack#/types/rich_text':
      return typeof value === 'string';
    case 'integer':
      return typeof value === 'number' && Number.isInteger(value);
    case 'number':
    case 'slack#/types/timestamp':
      return typeof value === 'number' && Number.isFinite(value);
    case 'boolean':
      return typeof value === 'boolean';
    case 'array':
      return (
        Array.isArray(value) &&
        (parameter.items === undefined || value.every((item) => hasType(item, parameter.items as StepParameter)))
      );
    case 'object':
      return value !== null && typeof value === 'object' && !Array.isArray(value);
    case 'slack#/types/user_id':
      return typeof value === 'string' && USER_ID.test(value);
    case 'slack#/types/channel_id':
      return typeof value === 'string' && CHANNEL_ID.test(value);
    case USER_CONTEXT:
      return isUserContext(value);
    default:
      return value !== undefined;
  }
}

/**
 * Why values do not fit declared parameters: a required one missing, one of the wrong type, or
 * one that is not declared at all. Empty when they fit.
 */
export function parameterViolations(
  values: Record<string, unknown>,
  declared: Record<string, StepParameter>,
  where: 'inputs' | 'outputs',
): Violation[] {
  const violations: Violation[] = [];
  for (const [name, parameter] of Object.entries(declared)) {
    const value = values[name];
    if (value === undefined || value === null) {
      if (parameter.is_required === true) violations.push({ pointer: `/${where}/${name}`, message: 'is required' });
      continue;
    }
    if (!hasType(value, parameter))
      violations.push({ pointer: `/${where}/${name}`, message: `must be of type ${parameter.type}` });
  }
  for (const name of Object.keys(values))
    if (!(name in declared)) violations.push({ pointer: `/${where}/${name}`, message: 'is not a declared parameter' });
  return violations;
}

/**
 * The inputs as Slack hands them to the step: each `slack#/types/user_context` input filled with
 * the person who used the workflow (`usedBy`), `{ id, secret }`, as Workflow Builder's "Person who
 * used this workflow" is. A builder cannot type one, so a value given for it is a violation.
 */
export function withUserContexts(
  inputs: Record<string, unknown>,
  declared: Record<string, StepParameter>,
  usedBy: string | undefined,
): { inputs: Record<string, unknown>; violations: Violation[] } {
  const filled = { ...inputs };
  const violations: Violation[] = [];
  for (const [name, parameter] of Object.entries(declared)) {
    if (parameter.type !== USER_CONTEXT) continue;
    if (inputs[name] !== undefined)
      violations.push({ pointer: `/inputs/${name}`, message: 'is set by Slack from the person who used the workflow' });
    else if (usedBy !== undefined) filled[name] = { id: usedBy, secret: randomBytes(16).toString('hex') };
  }
  return { inputs: filled, violations };
}

/** The parameters as function_executed lists them: an array, each with its name. */
function parameterList(declared: Record<string, StepParameter>): Record<string, unknown>[] {
  return Object.entries(declared).map(([name, parameter]) => ({ name, ...parameter }));
}

export function newExecution(
  callbackId: string,
  definition: StepDefinition,
  inputs: Record<string, unknown>,
  usedBy?: string,
): StepExecutionRecord {
  return {
    id: slackId('Fx'),
    callbackId,
    definition,
    inputs,
    usedBy,
    token: `xwfp-${randomBytes(12).toString('hex')}`,
    state: 'running',
    completions: 0,
  };
}

/** The `function_executed` event Slack sends when a workflow reaches the step. */
export function functionExecutedEvent(
  execution: StepExecutionRecord,
  appId: string,
  eventTs: string,
): Record<string, unknown> {
  const created = Math.floor(Date.now() / 1000);
  return {
    type: 'function_executed',
    function: {
      id: `Fn${execution.callbackId
        .replace(/[^A-Za-z0-9]/g, '')
        .toUpperCase()
        .slice(0, 10)}`,
      callback_id: execution.callbackId,
      title: execution.definition.title,
      description: execution.definition.description,
      type: 'app',
      input_parameters: parameterList(execution.definition.input_parameters),
      output_parameters: parameterList(execution.definition.output_parameters),
      app_id: appId,
      date_created: created,
      date_updated: created,
      date_deleted: 0,
    },
    inputs: execution.inputs,
    function_execution_id: execution.id,
    workflow_execution_id: slackId('Wx'),
    event_ts: eventTs,
    bot_access_token: execution.token,
  };
}
