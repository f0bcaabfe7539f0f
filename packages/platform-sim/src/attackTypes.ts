import { isIP } from 'node:net';
import { attackCatalogue, type AttackArg, type AttackType } from './catalogue.ts';
import { badRequest } from './route.ts';

export const defaultLengthSeconds = 60;

export interface ValidCommand {
  type: string;
  args: string[];
  lengthSeconds: number;
}

/**
 * Validates an attack type and its command-line flags the way the platform's agent would parse
 * them; anything it could not run is a 400.
 */
export function validateCommand(type: string, args: readonly string[]): ValidCommand {
  const metadata = attackCatalogue.find((entry) => entry.name === type);
  if (!metadata) throw badRequest(`unknown attack type "${type}"`);

  const seen = new Set<string>();
  let lengthSeconds = defaultLengthSeconds;
  for (let index = 0; index < args.length; index++) {
    const token = args[index] ?? '';
    const { arg, inlineValue } = findArg(metadata, token);
    if (seen.has(arg.name) && !arg.multiple) throw badRequest(`"${token}" is given more than once`);
    seen.add(arg.name);

    if (arg.type === 'Boolean') {
      if (inlineValue !== undefined) throw badRequest(`"${token}" takes no value`);
      continue;
    }
    const value = inlineValue ?? args[++index];
    if (value === undefined) throw badRequest(`"${token}" needs a value`);
    checkValue(arg, token, value);
    if (arg.name === 'length') {
      lengthSeconds = Number(value);
      if (lengthSeconds < 1) throw badRequest(`"${token}" must be at least 1 second`);
    }
  }
  const missing = metadata.args.find((arg) => arg.required && !seen.has(arg.name));
  if (missing) throw badRequest(`${type} needs --${missing.long ?? missing.name}`);
  return { type, args: [...args], lengthSeconds };
}

function findArg(metadata: AttackType, token: string): { arg: AttackArg; inlineValue?: string } {
  const long = /^--([^=]+)(?:=(.*))?$/s.exec(token);
  const short = /^-([A-Za-z])$/.exec(token);
  const arg = long
    ? metadata.args.find((candidate) => (candidate.long ?? candidate.name) === long[1])
    : short
      ? metadata.args.find((candidate) => candidate.short === short[1])
      : undefined;
  if (!arg) throw badRequest(`unknown argument "${token}" for ${metadata.name}`);
  return long?.[2] !== undefined ? { arg, inlineValue: long[2] } : { arg };
}

function checkValue(arg: AttackArg, token: string, value: string): void {
  const valid = (() => {
    switch (arg.type) {
      case 'Integer':
        return /^-?\d+$/.test(value);
      case 'Float':
        return /^-?\d+(\.\d+)?$/.test(value);
      case 'Enum':
        return (arg.options ?? []).includes(value);
      case 'IP':
        return isIpOrCidr(value);
      case 'URL':
        return URL.canParse(value);
      default:
        return value.trim() !== '';
    }
  })();
  if (!valid) throw badRequest(`"${value}" is not a valid value for "${token}" (expected ${describe(arg)})`);
}

function isIpOrCidr(value: string): boolean {
  const [address = '', prefix, ...rest] = value.split('/');
  const version = isIP(address);
  if (version === 0 || rest.length > 0) return false;
  if (prefix === undefined) return true;
  return /^\d+$/.test(prefix) && Number(prefix) <= (version === 4 ? 32 : 128);
}

function describe(arg: AttackArg): string {
  switch (arg.type) {
    case 'Enum':
      return `one of ${(arg.options ?? []).join(', ')}`;
    case 'IP':
      return 'an IP address or CIDR block';
    case 'Integer':
      return 'an integer';
    case 'Float':
      return 'a number';
    case 'URL':
      return 'a URL';
    default:
      return 'a non-empty string';
  }
}
