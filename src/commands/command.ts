import type { Deps } from '../deps.ts';
import type { Actor, Reply, SubmissionReply } from './reply.ts';

/** A slash subcommand after parsing: positional words and flags, as yargs-parser gives them. */
export interface CommandRequest {
  actor: Actor;
  /** Positional words after the subcommand name. */
  words: string[];
  /** Flags by long name (and short letter), as typed. */
  flags: Record<string, unknown>;
  /** The raw text after the subcommand name, for commands that take free text. */
  rest: string;
  /** Where to answer later (e.g. after a modal the command opened); absent outside slash commands. */
  responseUrl?: string | undefined;
  /** Slack's id of this very invocation: the same on a redelivery, new for every typed command. */
  triggerId?: string | undefined;
}

export interface Subcommand {
  name: string;
  /** One line, without the slash command: `team [name or id]`. */
  usage: string;
  summary: string;
  examples: string[];
  run(request: CommandRequest, deps: Deps): Promise<Reply>;
}

/** A modal submission, with input values by action id (text, or the selected option's value). */
export interface Submission {
  actor: Actor;
  /** The id of the submitted view, to update it later. */
  viewId?: string | undefined;
  inputs: Record<string, string | undefined>;
  privateMetadata: string;
}

/** A button click or select change; `inputs` holds the modal's values when it came from one. */
export interface Action {
  actor: Actor;
  actionId: string;
  value: string | undefined;
  inputs: Record<string, string | undefined>;
  privateMetadata: string;
  /** Where the action came from. */
  container: 'message' | 'modal' | 'home';
}

export type SubmissionHandler = (submission: Submission, deps: Deps) => Promise<SubmissionReply>;
export type ActionHandler = (action: Action, deps: Deps) => Promise<Reply>;
export type OptionsHandler = (request: { actor: Actor; query: string }, deps: Deps) => Promise<{ text: string; value: string }[]>;
