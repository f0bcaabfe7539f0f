import type { KnownBlock, ModalView } from '@slack/types';
import type { ZodRawShape } from 'zod';
import type { Services } from '../services.ts';
import type { Actor } from '../store/sessions.ts';
import type { Message } from '../views/message.ts';
import type { StepResult } from '../workflow/service.ts';
import type { Contract } from './contract.ts';

/** A slash subcommand as delivered: its words, split once, for its contract to read. */
export interface CommandRequest {
  actor: Actor;
  /**
   * Every word after the subcommand name, split once by the one tokenizer (quotes removed); the
   * subcommand's contract reads its flags and words from these.
   */
  tokens: string[];
  /** A quote the person left open; it was kept as a character in `tokens`. */
  unclosedQuote?: '"' | "'" | undefined;
  /** The raw text after the subcommand name, for commands that take free text. */
  rest: string;
  /** Where to answer later (e.g. after a modal the command opened); absent outside slash commands. */
  responseUrl?: string | undefined;
}

/**
 * What separates words: every Unicode space (JavaScript's `\s` covers tabs, newlines, the
 * no-break space U+00A0, the en/em/thin spaces, U+3000 …) and NEL (U+0085), which `\s` lacks.
 * Slack keeps whatever a person typed or pasted, so a tab or a no-break space must part words
 * exactly as a plain space does.
 */
const wordSeparator = /[\s\u0085]/u;

interface Words {
  words: string[];
  /** Where the first word ends in the text, so the free text after it can be read as typed. */
  firstWordEnd: number;
  /** A quote with no closing partner; it was kept as an ordinary character. */
  unclosedQuote?: '"' | "'" | undefined;
}

/**
 * Splits command text into words the way a shell would for plain quoting: "a b" and 'a b' keep
 * their spaces, quotes next to other characters join them (`--dir="/my dir"`). Only straight
 * quotes count; the caller straightens the curly ones Slack substitutes. A quote that is never
 * closed is kept as a character (an apostrophe in a note), and reported.
 */
export function splitWords(text: string): Words {
  const chars = [...text];
  const words: string[] = [];
  let firstWordEnd = text.length;
  let offset = 0;
  let current = '';
  let inWord = false;
  let quote: '"' | "'" | undefined;
  let unclosedQuote: '"' | "'" | undefined;
  const end = () => {
    if (inWord) {
      if (words.length === 0) firstWordEnd = offset;
      words.push(current);
    }
    current = '';
    inWord = false;
  };
  for (let index = 0; index < chars.length; offset += chars[index]!.length, index++) {
    const char = chars[index]!;
    if (quote) {
      if (char === quote) quote = undefined;
      else current += char;
    } else if ((char === '"' || char === "'") && chars.indexOf(char, index + 1) >= 0) {
      quote = char;
      inWord = true;
    } else if (wordSeparator.test(char)) {
      end();
    } else {
      if (char === '"' || char === "'") unclosedQuote ??= char;
      current += char;
      inWord = true;
    }
  }
  end();
  return { words, firstWordEnd, ...(unclosedQuote ? { unclosedQuote } : {}) };
}

/** A subcommand's run on the arguments its contract read. */
export type CommandRun = (deps: Services) => Promise<Reply>;

export interface Subcommand {
  name: string;
  /** One line, without the slash command: `team [name or id]`. */
  usage: string;
  summary: string;
  examples: string[];
  /** What it takes: its flags and words, declared once. */
  args: Contract<unknown>;
  /**
   * Reads the arguments through the contract (nothing runs on arguments it refuses): what runs on
   * them, once per delivery when it changes state.
   */
  take(request: CommandRequest): Entry<CommandRun>;
}

/** A subcommand as declared: its contract, and what it does with the arguments the contract read. */
export interface SubcommandSpec<A> extends Omit<Subcommand, 'args' | 'take'> {
  args: Contract<A>;
  /** It changes state (for these arguments): a request sent again does nothing (see `once`). */
  once?: true | ((args: A) => boolean);
  run(request: CommandRequest, args: A, deps: Services): Promise<Reply>;
}

export function subcommand<A>(spec: SubcommandSpec<A>): Subcommand {
  const { run, once, ...described } = spec;
  return {
    ...described,
    take(request) {
      const args = spec.args.read(request);
      const go: CommandRun = (deps) => run(request, args, deps);
      return once === true || once?.(args) ? { run: go, once: true } : go;
    },
  };
}

/**
 * What a handler wants shown to the person who acted. Handlers return this as plain data; the
 * Slack adapter alone turns it into `ack`, `respond` and Web API calls.
 */
export type Reply =
  | { kind: 'message'; message: Message; replaceOriginal?: boolean }
  /**
   * Opens `view` at once (a trigger lasts 3 s); with `followUp`, the modal is replaced by what it
   * gives once the slower work behind it is done (a failure shows in its place).
   */
  | {
      kind: 'openModal';
      view: ModalView;
      followUp?: () => Promise<ModalView>;
      /** Told the opened modal's id, to change it later from elsewhere. */
      opened?: (viewId: string) => Promise<void>;
    }
  | { kind: 'updateModal'; view: ModalView }
  | { kind: 'pushModal'; view: ModalView }
  | { kind: 'none' };

/** What a modal submission answers with (Slack's `response_action`, or closing the modal). */
export type SubmissionReply =
  | { kind: 'errors'; errors: Record<string, string> }
  | { kind: 'update'; view: ModalView }
  | { kind: 'push'; view: ModalView }
  | { kind: 'close' }
  | { kind: 'clear' };

export const message = (text: string, blocks?: KnownBlock[]): Reply => ({
  kind: 'message',
  message: blocks ? { text, blocks } : { text },
});

/** A reply that takes the place of the message whose button was clicked. */
export const replacement = (text: string, blocks?: KnownBlock[]): Reply => ({
  kind: 'message',
  message: blocks ? { text, blocks } : { text },
  replaceOriginal: true,
});

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

export type SubmissionHandler = (submission: Submission, deps: Services) => Promise<SubmissionReply>;
export type ActionHandler = (action: Action, deps: Services) => Promise<Reply>;

/**
 * An entry of the listener table: a handler, or one that changes state, which the Slack adapter
 * runs once per delivery. It is claimed after its field checks: an answer of field errors, or
 * input refused before anything was done, gives the delivery back, so the corrected one is taken.
 */
export type Entry<H> = H | Once<H>;
export interface Once<H> {
  run: H;
  once: true;
}

/** Declares a handler that changes state: a request sent again does nothing, and gets no answer. */
export const once = <H>(run: H): Entry<H> => ({ run, once: true });

export const isOnce = <H>(entry: Entry<H>): entry is Once<H> =>
  typeof entry === 'object' && entry !== null && 'once' in entry;
/** An external select asking for options as the person types; a modal's other inputs come with it. */
export interface OptionsRequest {
  actor: Actor;
  query: string;
  inputs: Record<string, string | undefined>;
  privateMetadata: string;
}

export type OptionsHandler = (request: OptionsRequest, deps: Services) => Promise<{ text: string; value: string }[]>;

/** A workflow reached one of Faultline's steps: whose session acts (the person who used the workflow), and the other inputs. */
export interface WorkflowStepRequest {
  actor: Actor;
  inputs: Record<string, unknown>;
  /** Slack's id of this run of the step, to finish it later. */
  executionId: string;
}

/**
 * How a step ends: completed with its outputs, failed with a sentence a person can act on, or
 * `later` when something it waits on (a second person, its attack's end) finishes it.
 */
export type WorkflowStepResult = StepResult;

export type WorkflowStepHandler = (request: WorkflowStepRequest, deps: Services) => Promise<WorkflowStepResult>;

/**
 * A tool Slackbot calls (MCP, src/slack/mcp.ts): what it takes, each argument described for a
 * model, and what it does as the person Slack names, answered as the message the same command
 * would show in Slack. It adds no rule: it calls what the slash command calls.
 */
export interface SlackbotTool {
  name: string;
  description: string;
  /** The arguments, checked before anything runs. */
  input: ZodRawShape;
  /** It only reads: Slackbot may call it without asking the person first. */
  readOnly: boolean;
  run(args: Record<string, unknown>, actor: Actor, services: Services): Promise<Message>;
}
