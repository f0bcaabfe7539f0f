import { UserInputError } from '../../errors.ts';
import { attackUsage } from './usage.ts';

/**
 * Splits command text into words the way a shell would for plain quoting: "a b" and 'a b' keep
 * their spaces, quotes next to other characters join them (`--dir="/my dir"`). Only straight
 * quotes count; the caller straightens the curly ones Slack substitutes.
 */
export function tokenize(text: string): string[] {
  const tokens: string[] = [];
  let current = '';
  let inToken = false;
  let quote: '"' | "'" | undefined;
  for (const char of text) {
    if (quote) {
      if (char === quote) quote = undefined;
      else current += char;
    } else if (char === '"' || char === "'") {
      quote = char;
      inToken = true;
    } else if (/\s/.test(char)) {
      if (inToken) tokens.push(current);
      current = '';
      inToken = false;
    } else {
      current += char;
      inToken = true;
    }
  }
  if (quote) throw new UserInputError(`A ${quote === '"' ? 'double' : 'single'} quote is not closed.`, attackUsage.general);
  if (inToken) tokens.push(current);
  return tokens;
}

