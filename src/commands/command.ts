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
