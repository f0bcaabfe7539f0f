import type { Services } from '../services.ts';
import type { Entry, Reply } from './reply.ts';
import type { Actor } from '../store/sessions.ts';
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
