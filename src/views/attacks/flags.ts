import { escapeMrkdwn } from '../blocks.ts';

/** A flag as typed: `-t` for one letter, `--team` otherwise. */
export const flagText = (name: string) => (name.length === 1 ? `-${name}` : `--${name}`);

const typedCode = (typed: string) => `\`${escapeMrkdwn(typed)}\``;

/** The words a person reads when a command's flags or words do not fit what it takes. */
export const flagWords = {
  /** `takes` says what the command takes instead, when that helps more than its usage line. */
  unknown(typed: string, command: string, closest: string | undefined, takes: string | undefined): string {
    const hint = closest ? ` Did you mean \`${closest}\`?` : '';
    return `${typedCode(typed)} is not an option of \`${command}\`${takes ? `: it takes ${takes}.` : '.'}${hint}`;
  },
  needsValue: (flag: string, what: string) => `\`${flag}\` needs ${what}.`,
  badValue: (flag: string, value: string, what: string) =>
    `“${escapeMrkdwn(value)}” is not a value of \`${flag}\`: it takes ${what}.`,
  takesNoValue: (flag: string) => `\`${flag}\` takes no value: give it alone.`,
  givenTwice: (flag: string) => `\`${flag}\` is given more than once; give it once.`,
  extraWords: (command: string, words: string[]) =>
    `\`${command}\` does not take “${escapeMrkdwn(words.join(' '))}”. Put a value that has spaces in quotes after its flag.`,
};
