import type { Deps } from '../deps.ts';
import type { Reply } from './contract.ts';
import type { Actor } from '../store/sessions.ts';

/** A slash subcommand after parsing: positional words and flags, as yargs-parser gives them. */
export interface CommandRequest {
  actor: Actor;
  /** Positional words after the subcommand name. */
  words: string[];
  /** Flags by long name (and short letter), as typed. */
  flags: Record<string, unknown>;
  /**
   * Every word after the subcommand name, split once by the one tokenizer (quotes removed); `words`
   * and `flags` are read from these same words.
   */
  tokens: string[];
  /** A quote the person left open; it was kept as a character in `tokens`. */
  unclosedQuote?: '"' | "'" | undefined;
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
