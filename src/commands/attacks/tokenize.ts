import { UserInputError } from '../../errors.ts';
import { attackUsage } from './usage.ts';

/**
 * What separates words: every Unicode space (JavaScript's `\s` covers tabs, newlines, the
 * no-break space U+00A0, the en/em/thin spaces, U+3000 …) and NEL (U+0085), which `\s` lacks.
 * Slack keeps whatever a person typed or pasted, so a tab or a no-break space must part words
 * exactly as a plain space does.
 */
export const wordSeparator = /[\s\u0085]/u;

export interface Words {
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

/** Why a quote left open makes the words unreliable, for commands whose values may be quoted. */
export function unclosedQuoteError(quote: '"' | "'"): UserInputError {
  return new UserInputError(`A ${quote === '"' ? 'double' : 'single'} quote is not closed.`, attackUsage.general);
}

/** Words of an attack command; an unclosed quote is an error there, since it would change what runs. */
export function tokenize(text: string): string[] {
  const { words, unclosedQuote } = splitWords(text);
  if (unclosedQuote) throw unclosedQuoteError(unclosedQuote);
  return words;
}
