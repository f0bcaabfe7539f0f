import { describe, expect, it } from 'vitest';
import { builtInCatalogue, type InfraAttackMetadata } from '../../src/client/catalogue.ts';
import { attackUsage, parseAttackCommand, requestedTeam, tokenize } from '../../src/commands/attacks/parse.ts';
import { splitWords } from '../../src/commands/command.ts';
import { parseCommandText } from '../../src/commands/index.ts';
import { type AttackTarget, targetFlags, targetFlagWords, type TargetKind } from '../../src/attacks/request.ts';
import { UserInputError } from '../../src/errors.ts';

/** A type the built-in catalogue lacks: a required URL, a Float, a long-only flag, and no service support. */
const probe: InfraAttackMetadata = {
  name: 'http_probe',
  type: 'Network',
  info: 'Probes an endpoint',
  usage: null,
  args: [
    {
      name: 'url',
      short: 'u',
      long: 'url',
      info: 'Endpoint to probe',
      type: 'URL',
      default: null,
      required: true,
      multiple: false,
      options: null,
    },
    {
      name: 'ratio',
      short: 'r',
      long: 'ratio',
      info: null,
      type: 'Float',
      default: 0.5,
      required: false,
      multiple: false,
      options: null,
    },
    {
      name: 'label',
      short: null,
      long: 'label',
      info: null,
      type: 'String',
      default: null,
      required: false,
      multiple: false,
      options: null,
    },
  ],
};
const catalogue = [...builtInCatalogue, probe];
const limits = { maxAttackSeconds: 3600 };

const parse = (text: string, max = limits.maxAttackSeconds) =>
  parseAttackCommand(text, catalogue, { maxAttackSeconds: max });

function failure(text: string, max = limits.maxAttackSeconds): UserInputError {
  try {
    parse(text, max);
  } catch (error) {
    if (error instanceof UserInputError) return error;
    throw error;
  }
  throw new Error(`expected "${text}" to be rejected`);
}

const cpuUsage = 'attack cpu [-l length] [-c cores | -a] [-p percent] [target flags] [--guard G] [--team T] [--yes]';

describe('tokenize', () => {
  it.each([
    { text: 'cpu -l 30', tokens: ['cpu', '-l', '30'] },
    { text: '  cpu\t -l\n30  ', tokens: ['cpu', '-l', '30'] },
    { text: 'process_killer -p "java app"', tokens: ['process_killer', '-p', 'java app'] },
    { text: "process_killer -p 'java app'", tokens: ['process_killer', '-p', 'java app'] },
    { text: '--dir="/var/my dir"', tokens: ['--dir=/var/my dir'] },
    { text: `-p "it's"`, tokens: ['-p', "it's"] },
    { text: `-p 'say "hi"'`, tokens: ['-p', 'say "hi"'] },
    { text: '-d ""', tokens: ['-d', ''] },
    { text: '', tokens: [] },
  ])('$text', ({ text, tokens }) => {
    expect(tokenize(text)).toEqual(tokens);
  });

  it.each([
    ['a tab', '\t'],
    ['a newline', '\n'],
    ['a carriage return and newline', '\r\n'],
    ['a no-break space', '\u00a0'],
    ['a narrow no-break space', '\u202f'],
    ['an em space', '\u2003'],
    ['an ideographic space', '\u3000'],
    ['a next-line character', '\u0085'],
  ])('parts words at %s as at a space', (_name, space) => {
    expect(tokenize(`cpu${space}-l${space}30${space}--team${space}Payments`)).toEqual([
      'cpu',
      '-l',
      '30',
      '--team',
      'Payments',
    ]);
  });

  it('keeps a quote that is never closed as a character, and says so', () => {
    expect(splitWords(`note abc it's fine`)).toEqual({
      words: ['note', 'abc', "it's", 'fine'],
      firstWordEnd: 4,
      unclosedQuote: "'",
    });
    expect(splitWords('a "b c" d')).toEqual({ words: ['a', 'b c', 'd'], firstWordEnd: 1 });
  });

  it('rejects a quote that is not closed, with the general usage', () => {
    expect(() => tokenize('cpu --team "Payments')).toThrow(UserInputError);
    expect(() => tokenize("cpu --team 'Payments")).toThrow(/single quote is not closed/);
  });
});

describe('the attack type', () => {
  it('is matched ignoring case and reported by its metadata name', () => {
    expect(parse('CPU').type).toBe('cpu');
    expect(parse('Time_Travel').type).toBe('time_travel');
  });

  it('when unknown, lists the available types by group with the general usage', () => {
    const error = failure('cpux -l 30');
    expect(error.message).toContain('“cpux” is not an attack type');
    expect(error.message).toContain('Resource: cpu, memory, disk, io');
    expect(error.message).toContain('State: shutdown, time_travel, process_killer');
    expect(error.message).toContain('Network: blackhole, latency, packet_loss, dns, http_probe');
    expect(error.usage).toBe(attackUsage.general);
  });

  it.each(['', '   ', '-l 30 cpu', '--target-tags role=web'])('must come first (%j)', (text) => {
    const error = failure(text);
    expect(error.message).toContain('Available: Resource: cpu');
    expect(error.usage).toBe(attackUsage.general);
  });
});

describe('attack flags', () => {
  it.each([
    { text: 'cpu -l 30 -c 1', args: ['-l', '30', '-c', '1'] },
    { text: 'cpu -c 1 -l 30', args: ['-c', '1', '-l', '30'] },
    { text: 'cpu --length 30 --cores 2', args: ['--length', '30', '--cores', '2'] },
    { text: 'cpu --length=30 -c=2', args: ['--length', '30', '-c', '2'] },
    { text: 'cpu -a -p 50', args: ['-a', '-p', '50', '-l', '60'] },
    { text: 'cpu --all_cores=true', args: ['--all_cores', '-l', '60'] },
    { text: 'cpu --all_cores=false -l 30', args: ['-l', '30'] },
    { text: 'time_travel -o -3600', args: ['-o', '-3600', '-l', '60'] },
    { text: 'memory -g 1.5', args: ['-g', '1.5', '-l', '60'] },
    { text: 'io -m rw', args: ['-m', 'rw', '-l', '60'] },
    { text: 'dns -i 10.0.0.53 -i 10.1.0.0/16', args: ['-i', '10.0.0.53', '-i', '10.1.0.0/16', '-l', '60'] },
    { text: 'dns -i 10.0.0.53,2001:db8::1', args: ['-i', '10.0.0.53,2001:db8::1', '-l', '60'] },
    {
      text: 'blackhole -h "api.example.com, db.example.com"',
      args: ['-h', 'api.example.com, db.example.com', '-l', '60'],
    },
    { text: 'process_killer -p "java -jar app"', args: ['-p', 'java -jar app', '-l', '60'] },
    { text: 'process_killer --process=--weird', args: ['--process', '--weird', '-l', '60'] },
    {
      text: 'http_probe -u https://example.com/health --label "canary one"',
      args: ['-u', 'https://example.com/health', '--label', 'canary one'],
    },
    { text: 'shutdown', args: [] },
  ])('$text → $args', ({ text, args }) => {
    expect(parse(text).args).toEqual(args);
  });

  it('never passes bot flags through, wherever they stand', () => {
    const request = parse('cpu --team Payments -l 30 --target-tags role=web --yes -c 1 --target-count 2');
    expect(request.args).toEqual(['-l', '30', '-c', '1']);
    expect(request.team).toBe('Payments');
    expect(request.yes).toBe(true);
  });

  it('takes --team in both forms, and --yes only spelt out', () => {
    expect(parse('cpu --team="Payments Core" --yes')).toMatchObject({ team: 'Payments Core', yes: true });
    expect(parse('cpu')).toMatchObject({ team: undefined, yes: false });
    expect(() => parse('cpu -y')).toThrow('“-y” is not a flag of cpu');
  });

  it.each([
    {
      text: 'cpu -l 30 -x 1',
      message: '“-x” is not a flag of cpu. Flags of cpu: -l/--length, -c/--cores, -a/--all_cores, -p/--percent.',
    },
    { text: 'cpu --cors 2', message: '“--cors” is not a flag of cpu' },
    { text: 'cpu --target-tag role=web', message: 'Target flags: --target-hosts' },
    { text: 'http_probe -u http://a -l 30', message: 'Flags of http_probe: -u/--url, -r/--ratio, --label' },
  ])('unknown flag: $text', ({ text, message }) => {
    const error = failure(text);
    expect(error.message).toContain(message);
  });

  it.each([
    { text: 'cpu -c many', message: '“many” is not a valid value for `-c`: expected a whole number, at least 1.' },
    { text: 'cpu -c 1.5', message: 'expected a whole number' },
    { text: 'cpu -l 0', message: 'expected a whole number of seconds, at least 1' },
    { text: 'cpu -l -30', message: 'expected a whole number of seconds, at least 1' },
    { text: 'memory -g lots', message: 'expected a number greater than 0, such as 1.5' },
    { text: 'memory -g 1.', message: 'expected a number' },
    { text: 'io -m RW', message: '“RW” is not a valid value for `-m`: expected one of r, w, rw.' },
    { text: 'dns -i 10.0.0.300', message: 'expected an IP address or CIDR block' },
    { text: 'dns -i 10.0.0.0/33', message: 'expected an IP address or CIDR block' },
    { text: 'dns -i 10.0.0.1,,10.0.0.2', message: 'expected one or more values separated by single commas' },
    { text: 'dns -i 10.0.0.1,nope', message: 'or several separated by commas' },
    { text: 'http_probe -u ftp://example.com', message: 'expected an http or https URL' },
    { text: 'http_probe -u example.com', message: 'expected an http or https URL' },
    { text: 'process_killer -p ""', message: 'expected a value that is not empty' },
    { text: 'process_killer -p "  "', message: 'expected a value that is not empty' },
    { text: 'cpu --all_cores=yes', message: '`--all_cores` is a switch' },
  ])('bad value: $text', ({ text, message }) => {
    const error = failure(text);
    expect(error.message).toContain(message);
  });

  it.each([
    { text: 'cpu -l', flag: '`-l`' },
    { text: 'cpu -l -c 1', flag: '`-l`' },
    { text: 'cpu --length --team Payments', flag: '`--length`' },
    { text: 'cpu --team', flag: '`--team`' },
    { text: 'cpu --target-hosts', flag: '`--target-hosts`' },
  ])('missing value: $text', ({ text, flag }) => {
    expect(failure(text).message).toBe(`${flag} needs a value.`);
  });

  it.each([
    { text: 'cpu -l 30 -l 40', message: '`-l/--length` is given more than once; give it once.' },
    { text: 'cpu -l 30 --length=40', message: '`-l/--length` is given more than once' },
    { text: 'cpu -a --all_cores', message: '`-a/--all_cores` is given more than once' },
    { text: 'cpu --team A --team B', message: '`--team` is given more than once' },
    { text: 'cpu --target-hosts a --target-hosts b', message: '`--target-hosts` is given more than once' },
    {
      text: 'cpu --target-tags a=b --target-count 1 --target-count 2',
      message: '`--target-count` is given more than once',
    },
  ])('repeat: $text', ({ text, message }) => {
    expect(failure(text).message).toContain(message);
  });

  it.each([
    { text: 'cpu 30', message: 'Unexpected word “30”: values follow the flag they belong to.' },
    { text: 'cpu -l 30 40', message: 'Unexpected word “40”' },
    { text: 'cpu -a true', message: 'Unexpected word “true”: `-a` takes no value.' },
    { text: 'cpu -l 30 -', message: 'Unexpected word “-”' },
  ])('stray word: $text', ({ text, message }) => {
    expect(failure(text).message).toContain(message);
  });

  it('names every required flag that is missing', () => {
    expect(failure('http_probe -r 0.2').message).toBe('http_probe needs `-u/--url` (Endpoint to probe).');
    // Without a usage in the metadata, the line is built from the arguments.
    expect(failure('http_probe').usage).toBe(
      'attack http_probe -u url [-r ratio] [--label label] [target flags] [--guard G] [--team T] [--yes]',
    );
  });

  it('escapes what a person typed before it goes into a message', () => {
    expect(failure('cpu -c <!channel>').message).toContain('“&lt;!channel&gt;”');
    expect(failure('<!here>').message).toContain('“&lt;!here&gt;” is not an attack type');
  });

  it("puts the type's usage on every error after the type is known", () => {
    for (const text of ['cpu -x', 'cpu -c many', 'cpu 30', 'cpu -l 9999', 'cpu --target-count 2', 'cpu --team']) {
      expect(failure(text).usage).toBe(cpuUsage);
    }
  });
});

describe('numbers are checked against their range', () => {
  /** A type whose metadata gives bounds, as a platform may. */
  const bounded: InfraAttackMetadata = {
    name: 'fill',
    type: 'Resource',
    info: null,
    usage: null,
    args: [
      {
        name: 'workers',
        short: 'w',
        long: 'workers',
        info: null,
        type: 'Integer',
        default: 2,
        required: false,
        multiple: false,
        options: null,
        min: 2,
        max: 8,
      },
      {
        name: 'ratio',
        short: 'r',
        long: 'ratio',
        info: null,
        type: 'Float',
        default: null,
        required: false,
        multiple: false,
        options: null,
        min: 0.1,
        max: 0.9,
      },
      {
        name: 'percent',
        short: 'p',
        long: 'percent',
        info: null,
        type: 'Integer',
        default: null,
        required: false,
        multiple: false,
        options: null,
        max: 50,
      },
    ],
  };
  const withBounds = (text: string) => parseAttackCommand(text, [bounded], limits);
  const boundsFailure = (text: string) => {
    try {
      withBounds(text);
    } catch (error) {
      if (error instanceof UserInputError) return error.message;
      throw error;
    }
    throw new Error(`expected "${text}" to be rejected`);
  };

  it.each([
    { text: 'cpu -p 500', message: '“500” is not a valid value for `-p`: expected a whole number from 1 to 100.' },
    { text: 'cpu -p 0', message: 'expected a whole number from 1 to 100' },
    { text: 'cpu --percent=101', message: '`--percent`: expected a whole number from 1 to 100' },
    { text: 'cpu -c -4', message: '“-4” is not a valid value for `-c`: expected a whole number, at least 1.' },
    { text: 'cpu -c 0', message: 'expected a whole number, at least 1' },
    { text: 'cpu -c 99999999999', message: 'at most 2147483647' },
    { text: 'memory -m 0', message: '`-m`: expected a whole number, at least 1' },
    { text: 'memory -g 0', message: '`-g`: expected a number greater than 0' },
    { text: 'memory -g -1.5', message: 'expected a number greater than 0' },
    { text: 'packet_loss -r 150', message: '`-r`: expected a whole number from 1 to 100' },
    { text: 'shutdown -d -1', message: '`-d`: expected a whole number, at least 0' },
    { text: 'cpu -l 1.5', message: '`-l`: expected a whole number of seconds, at least 1' },
    {
      text: 'cpu --target-tags role=web --target-count 1000000',
      message: '`--target-count`. Give a whole number of clients, at least 1 and at most 1000.',
    },
  ])('refuses $text, naming the flag and the range', ({ text, message }) => {
    const error = failure(text);
    expect(error.message).toContain(message);
    expect(error.usage).toContain('attack ');
  });

  it.each([
    'cpu -p 1 -c 1',
    'cpu -p 100',
    'shutdown -d 0',
    'time_travel -o -86400',
    'memory -g 0.5',
    'cpu --target-tags role=web --target-count 1000',
  ])('accepts %s', (text) => {
    expect(() => parse(text)).not.toThrow();
  });

  it('uses the bounds the metadata gives, and general rules for the bounds it leaves out', () => {
    expect(withBounds('fill -w 2 -r 0.5 -p 50').args).toEqual(['-w', '2', '-r', '0.5', '-p', '50']);
    expect(boundsFailure('fill -w 1')).toContain('`-w`: expected a whole number from 2 to 8.');
    expect(boundsFailure('fill -w 9')).toContain('from 2 to 8');
    expect(boundsFailure('fill -r 0.95')).toContain('`-r`: expected a number from 0.1 to 0.9');
    expect(boundsFailure('fill -p 60')).toContain('`-p`: expected a whole number from 1 to 50');
    expect(boundsFailure('fill -p 0')).toContain('from 1 to 50');
  });
});

describe('did you mean', () => {
  it.each([
    { text: 'cpuu -l 30', hint: 'Did you mean `cpu`?' },
    { text: 'Memroy', hint: 'Did you mean `memory`?' },
    { text: 'packet-loss', hint: 'Did you mean `packet_loss`?' },
    { text: 'cpu --target-tag role=web', hint: 'Did you mean `--target-tags`?' },
    { text: 'cpu --cors 2', hint: 'Did you mean `--cores`?' },
    { text: 'cpu --lenght 30', hint: 'Did you mean `--length`?' },
    { text: 'cpu --yse', hint: 'Did you mean `--yes`?' },
    { text: 'cpu --taem Payments', hint: 'Did you mean `--team`?' },
    { text: 'cpu -length 30', hint: 'Did you mean `--length`?' },
  ])('$text → $hint', ({ text, hint }) => {
    expect(failure(text).message).toContain(hint);
  });

  it.each(['warp -l 30', 'cpu -x 1', 'cpu --frobnicate 2'])(
    'suggests nothing for %s, which is close to nothing',
    (text) => {
      expect(failure(text).message).not.toContain('Did you mean');
    },
  );
});

describe('the team is read from the same words as the rest', () => {
  it.each([
    { words: ['cpu', '--team', 'Payments'], team: 'Payments' },
    { words: ['cpu', '--team=Payments Core'], team: 'Payments Core' },
    { words: ['cpu', '-l', '30'], team: undefined },
    { words: ['cpu', '--team', '--yes'], team: undefined },
    { words: ['process_killer', '--process=--team', 'x'], team: undefined },
  ])('$words → $team', ({ words, team }) => {
    expect(requestedTeam(words)).toBe(team);
  });

  it.each(['\t', '\n', '\u00a0', '\u2009'])(
    'a command with %j before the team name gives every reader that team',
    (space) => {
      const { request } = parseCommandText(`attack cpu -l 30 --team${space}Payments --yes`, {
        workspaceId: 'T0',
        userId: 'U0',
        userName: 'u0',
        channelId: 'C0',
      });
      expect(requestedTeam(request.tokens)).toBe('Payments');
      expect(parseAttackCommand(request.tokens, catalogue, limits)).toMatchObject({
        team: 'Payments',
        yes: true,
        args: ['-l', '30'],
      });
    },
  );
});

describe('length guardrail', () => {
  it.each([
    { text: 'cpu -l 30', seconds: 30 },
    { text: 'cpu --length=3600', seconds: 3600 },
    { text: 'cpu', seconds: 60 },
    { text: 'latency -m 200', seconds: 60 },
    { text: 'shutdown -d 5', seconds: undefined },
  ])('$text runs $seconds seconds', ({ text, seconds }) => {
    expect(parse(text).lengthSeconds).toBe(seconds);
  });

  it('rejects a length over the limit, saying the limit', () => {
    const error = failure('cpu -l 3601');
    expect(error.message).toBe(
      '3601 seconds is too long. Attacks may run at most 3600 seconds here. Give `-l` of 3600 or less.',
    );
    expect(error.usage).toBe(cpuUsage);
  });

  it('rejects a default length over a lower limit, naming the flag that fixes it', () => {
    expect(failure('cpu -c 1', 30).message).toBe(
      'Attacks may run at most 30 seconds here. cpu runs 60 seconds by default, so give `-l` of 30 or less.',
    );
    expect(parse('cpu -l 30', 30).lengthSeconds).toBe(30);
  });

  it('does not apply to a type without a length', () => {
    expect(parse('shutdown -d 5', 1).lengthSeconds).toBeUndefined();
  });
});

describe('target flags', () => {
  const rows: { flags: string; target: AttackTarget }[] = [
    { flags: '', target: { kind: 'all' } },
    { flags: '--target-hosts web-1', target: { kind: 'hosts', ids: ['web-1'] } },
    { flags: '--target-hosts "web-1, web-2"', target: { kind: 'hosts', ids: ['web-1', 'web-2'] } },
    { flags: '--target-containers=c1,c2', target: { kind: 'containers', ids: ['c1', 'c2'] } },
    {
      flags: '--target-tags role=web,zone=us-east-1a',
      target: { kind: 'tags', tags: { role: 'web', zone: 'us-east-1a' } },
    },
    {
      flags: '--target-tags "role = web, zone=us-east-1a"',
      target: { kind: 'tags', tags: { role: 'web', zone: 'us-east-1a' } },
    },
    { flags: '--target-tags role=web --target-count 2', target: { kind: 'tags', tags: { role: 'web' }, count: 2 } },
    { flags: '--target-tags query=a=b', target: { kind: 'tags', tags: { query: 'a=b' } } },
    { flags: '--target-labels app=checkout', target: { kind: 'labels', labels: { app: 'checkout' } } },
    {
      flags: '--target-count 1 --target-labels app=checkout',
      target: { kind: 'labels', labels: { app: 'checkout' }, count: 1 },
    },
    { flags: '--target-service svc-42', target: { kind: 'service', serviceId: 'svc-42' } },
  ];
  it.each(rows)('cpu $flags', ({ flags, target }) => {
    const request = parse(`cpu -l 30 ${flags}`);
    expect(request.target).toStrictEqual(target);
    expect(request.args).toEqual(['-l', '30']);
  });

  it('keeps a key such as __proto__ as an ordinary tag', () => {
    const request = parse('cpu --target-tags __proto__=x');
    expect(request.target).toMatchObject({ kind: 'tags' });
    expect(Object.keys(request.target.kind === 'tags' ? request.target.tags : {})).toEqual(['__proto__']);
  });

  it.each([
    {
      flags: '--target-hosts a,,b',
      message: '`--target-hosts` “a,,b”: Give one or more ids separated by single commas, with no empty item.',
    },
    { flags: '--target-containers ,', message: 'no empty item' },
    { flags: '--target-tags role', message: '“role” is not a key=value pair' },
    { flags: '--target-tags =web', message: '“=web” is not a key=value pair' },
    { flags: '--target-tags role=', message: '“role=” is not a key=value pair' },
    { flags: '--target-tags role=web,', message: '“” is not a key=value pair' },
    { flags: '--target-labels app=a,app=b', message: '“app” is given twice' },
    { flags: '--target-service " "', message: '`--target-service` needs a service id.' },
    {
      flags: '--target-service "svc-1 svc-2"',
      message: '`--target-service` “svc-1 svc-2”: give one service id, not a list',
    },
    {
      flags: '--target-service svc-1,svc-2',
      message: '`--target-service` “svc-1,svc-2”: give one service id, not a list',
    },
    { flags: '--target-service ../teams', message: '`--target-service` “../teams”: a service id has letters, digits' },
    { flags: '--target-service svc?x=1', message: 'a service id has letters, digits, `-` and `_` only' },
    { flags: '--target-tags role=web --target-count 0', message: 'at least 1' },
    { flags: '--target-tags role=web --target-count two', message: '“two” is not a valid value for `--target-count`' },
    { flags: '--target-tags role=web --target-count 1.5', message: 'whole number' },
  ])('bad target: $flags', ({ flags, message }) => {
    expect(failure(`cpu ${flags}`).message).toContain(message);
  });

  it.each([
    ['--target-hosts a', '--target-containers b'],
    ['--target-tags a=b', '--target-labels c=d'],
    ['--target-hosts a', '--target-service s'],
    ['--target-containers a', '--target-tags a=b'],
  ])('only one target kind: %s %s', (first, second) => {
    const message = failure(`cpu ${first} ${second}`).message;
    expect(message).toContain('Use one target flag, not');
    expect(message).toContain(`\`${first.split(' ')[0]}\``);
    expect(message).toContain(`\`${second.split(' ')[0]}\``);
  });

  it.each([
    { flags: '--target-count 2', message: 'add one of them' },
    { flags: '--target-hosts a --target-count 2', message: 'it does not go with `--target-hosts`' },
    { flags: '--target-containers a --target-count 2', message: 'it does not go with `--target-containers`' },
    { flags: '--target-service s --target-count 2', message: 'it does not go with `--target-service`' },
  ])('count only with tags or labels: $flags', ({ flags, message }) => {
    const error = failure(`cpu ${flags}`).message;
    expect(error).toContain('`--target-count` picks that many random clients');
    expect(error).toContain(message);
  });

  it('refuses a service target for a type the service endpoint cannot run', () => {
    expect(failure('http_probe -u https://a.example --target-service s').message).toBe(
      'http_probe attacks cannot target a service; use hosts, containers, tags or labels.',
    );
  });
});

describe('the length that runs is the length previewed', () => {
  const noDefault = [
    {
      name: 'stress',
      type: 'Resource',
      info: null,
      usage: null,
      args: [
        {
          name: 'length',
          short: 'l',
          long: 'length',
          info: null,
          type: 'Integer',
          default: null,
          required: false,
          multiple: false,
          options: null,
        },
      ],
    },
  ];
  it('adds the default length explicitly when none is typed', () => {
    expect(parseAttackCommand('cpu -c 2', builtInCatalogue, { maxAttackSeconds: 600 })).toMatchObject({
      args: ['-c', '2', '-l', '60'],
      lengthSeconds: 60,
    });
  });
  it('asks for a length when the type has no default', () => {
    expect(() => parseAttackCommand('stress', noDefault, { maxAttackSeconds: 600 })).toThrow(
      'stress has no default length: give -l/--length.',
    );
    expect(parseAttackCommand('stress -l 30', noDefault, { maxAttackSeconds: 600 })).toMatchObject({
      args: ['-l', '30'],
      lengthSeconds: 30,
    });
  });
});

describe('the target flag table', () => {
  const targets: Record<TargetKind, AttackTarget> = {
    hosts: { kind: 'hosts', ids: ['web-1', 'web-2'] },
    containers: { kind: 'containers', ids: ['c-1'] },
    tags: { kind: 'tags', tags: { role: 'web', zone: 'a' }, count: 2 },
    labels: { kind: 'labels', labels: { app: 'checkout' } },
    service: { kind: 'service', serviceId: 'svc-1', percent: 50, includeNewTargets: true },
    kubernetes: {
      kind: 'kubernetes',
      objects: [
        { clusterId: 'prod', namespace: 'shop', kind: 'Deployment', name: 'web' },
        { clusterId: 'prod', namespace: 'shop', kind: 'StatefulSet', name: 'db' },
      ],
      percent: 50,
    },
  };

  it.each(Object.keys(targetFlags) as TargetKind[])(
    '%s: the usage names its flag, and the parser reads back what the preview writes',
    (kind) => {
      expect(attackUsage.targetFlags).toContain(`${targetFlags[kind].flag} ${targetFlags[kind].value}`);
      const words = targetFlagWords(targets[kind]);
      expect(words[0]).toBe(targetFlags[kind].flag);
      expect(parse(`cpu -l 60 ${words.join(' ')}`).target).toEqual(targets[kind]);
    },
  );
});

describe('--guard and the Kubernetes and service target flags', () => {
  const monitoring = {
    integrationA: 'acme-metrics',
    domainA: 'app.monitoring-a.example',
    uriB: 'https://alerts.monitoring-b.example',
  };
  const withGuards = (text: string) =>
    parseAttackCommand(text, catalogue, { ...limits, monitoring, command: '/chaos' });

  it('reads --guard as often as it is given, once per guard, with the configured integrations', () => {
    expect(withGuards('cpu -l 30 --guard a:1234567 --guard b:CheckoutErrorRate --guard a:1234567').guards).toEqual([
      { kind: 'a', monitorId: '1234567', integration: 'acme-metrics', domain: 'app.monitoring-a.example' },
      { kind: 'b', alert: 'CheckoutErrorRate', uri: 'https://alerts.monitoring-b.example' },
    ]);
    expect(withGuards('cpu -l 30').guards).toBeUndefined();
  });

  it('says what is wrong with a guard, with the attack usage line', () => {
    const error = (() => {
      try {
        withGuards('cpu -l 30 --guard a:latency');
      } catch (thrown) {
        return thrown as UserInputError;
      }
      throw new Error('expected a refusal');
    })();
    expect(error.message).toContain('`--guard`: “latency” is not a monitor id');
    expect(error.usage).toBe(cpuUsage);
    expect(() => parse('cpu -l 30 --guard a:1234567')).toThrow('Monitor guards need MONITORING_A_INTEGRATION');
    expect(() => parse('cpu -l 30 --gard a:1')).toThrow('Did you mean `--guard`?');
    expect(attackUsage.general).toContain('[--guard G]');
  });

  it('reads Kubernetes objects from repeated flags and commas, with a count or a percent', () => {
    expect(
      parse(
        'cpu -l 30 --k8s-target c/ns/Deployment/web,c/ns/StatefulSet/db --k8s-target c/ns/Deployment/web --k8s-percent 50',
      ).target,
    ).toEqual({
      kind: 'kubernetes',
      objects: [
        { clusterId: 'c', namespace: 'ns', kind: 'Deployment', name: 'web' },
        { clusterId: 'c', namespace: 'ns', kind: 'StatefulSet', name: 'db' },
      ],
      percent: 50,
    });
    expect(failure('cpu --k8s-target c/ns/Deployment').message).toContain('is not a Kubernetes object');
    expect(failure('cpu --k8s-target c/ns/D/w --k8s-count 1 --k8s-percent 5').message).toContain('not both');
    expect(failure('cpu --k8s-targt c/ns/D/w').message).toContain('Did you mean `--k8s-target`?');
  });

  it('reads sampling and new targets for a service', () => {
    expect(parse('cpu -l 30 --target-service svc --sample-percent 25 --include-new-targets').target).toEqual({
      kind: 'service',
      serviceId: 'svc',
      percent: 25,
      includeNewTargets: true,
    });
    expect(failure('cpu --target-hosts a --include-new-targets').message).toContain(
      'it does not go with `--target-hosts`',
    );
  });
});
