import { describe, expect, it } from 'vitest';
import { builtInCatalogue, type InfraAttackMetadata } from '../../src/client/catalogue.ts';
import { builderToRequest } from '../../src/commands/attacks/builder.ts';
import { parseAttackCommand } from '../../src/commands/attacks/parse.ts';
import type { AttackRequest } from '../../src/attacks/request.ts';
import {
  ATTACK_GUARDS,
  ATTACK_INCLUDE_NEW,
  ATTACK_LENGTH,
  ATTACK_TARGET_PERCENT,
  ATTACK_TARGET_COUNT,
  ATTACK_TARGET_KIND,
  ATTACK_TARGET_VALUES,
  ATTACK_TEAM,
  ATTACK_TYPE_SELECT,
  attackArgId,
} from '../../src/views/attacks/builderFields.ts';
import { attackBuilderModal } from '../../src/views/attacks/attackBuilder.ts';
import { equivalentCommand } from '../../src/views/attacks/attackPreview.ts';

const probe: InfraAttackMetadata = {
  name: 'http_probe',
  type: 'Network',
  info: 'Probes an endpoint',
  usage: 'http_probe -u url [-r ratio]',
  args: [
    {
      name: 'url',
      short: 'u',
      long: 'url',
      info: null,
      type: 'URL',
      default: null,
      required: true,
      multiple: false,
      options: null,
    },
    {
      name: 'ratio',
      short: null,
      long: 'ratio',
      info: null,
      type: 'Float',
      default: null,
      required: false,
      multiple: false,
      options: null,
    },
  ],
};
const catalogue = [...builtInCatalogue, probe];
const limits = { maxAttackSeconds: 3600 };
const teams = [
  { id: 'team-1', name: 'Payments' },
  { id: 'team-2', name: 'Search' },
];

const arg = (type: string, name: string) => attackArgId(type, name);

function request(inputs: Record<string, string | undefined>, max = limits.maxAttackSeconds): AttackRequest {
  const result = builderToRequest(inputs, catalogue, { maxAttackSeconds: max });
  if ('errors' in result) throw new Error(`unexpected field errors: ${JSON.stringify(result.errors)}`);
  return result;
}

function errors(inputs: Record<string, string | undefined>, max = limits.maxAttackSeconds): Record<string, string> {
  const result = builderToRequest(inputs, catalogue, { maxAttackSeconds: max });
  if (!('errors' in result)) throw new Error(`expected field errors, got ${JSON.stringify(result)}`);
  return result.errors;
}

/** The slash command's parse of the text the preview shows as the equivalent command. */
function parsedEquivalent(built: AttackRequest): AttackRequest {
  const text = equivalentCommand(built);
  expect(text.startsWith('attack ')).toBe(true);
  return parseAttackCommand(text.slice('attack '.length), catalogue, limits);
}

describe('builderToRequest gives what the equivalent slash command gives', () => {
  const cases: { name: string; inputs: Record<string, string | undefined>; args: string[]; command: string }[] = [
    {
      name: 'cpu on random hosts by tags, with a count and a team',
      inputs: {
        [ATTACK_TYPE_SELECT]: 'cpu',
        [ATTACK_LENGTH]: '30',
        [arg('cpu', 'cores')]: '1',
        [arg('cpu', 'all_cores')]: '',
        [ATTACK_TARGET_KIND]: 'tags',
        [ATTACK_TARGET_VALUES]: 'role=web, zone=us-east-1a',
        [ATTACK_TARGET_COUNT]: '2',
        [ATTACK_TEAM]: 'team-1',
      },
      args: ['-l', '30', '-c', '1'],
      command: 'attack cpu -l 30 -c 1 --target-tags role=web,zone=us-east-1a --target-count 2 --team team-1',
    },
    {
      name: 'memory on exact hosts, inputs given out of metadata order',
      inputs: {
        [ATTACK_TARGET_VALUES]: 'web-1,web-2',
        [arg('memory', 'percent')]: '50',
        [arg('memory', 'gigabytes')]: '1.5',
        [ATTACK_TYPE_SELECT]: 'memory',
        [ATTACK_TARGET_KIND]: 'hosts',
      },
      args: ['-g', '1.5', '-p', '50', '-l', '60'],
      command: 'attack memory -g 1.5 -p 50 -l 60 --target-hosts web-1,web-2',
    },
    {
      name: 'io with an enum on exact containers',
      inputs: {
        [ATTACK_TYPE_SELECT]: 'io',
        [arg('io', 'mode')]: 'w',
        [arg('io', 'dir')]: '/var/data',
        [ATTACK_TARGET_KIND]: 'containers',
        [ATTACK_TARGET_VALUES]: ' c1 , c2 ',
      },
      args: ['-d', '/var/data', '-m', 'w', '-l', '60'],
      command: 'attack io -d /var/data -m w -l 60 --target-containers c1,c2',
    },
    {
      name: 'shutdown with a switch, on every client',
      inputs: { [ATTACK_TYPE_SELECT]: 'shutdown', [arg('shutdown', 'reboot')]: 'true', [ATTACK_TARGET_KIND]: 'all' },
      args: ['-r'],
      command: 'attack shutdown -r',
    },
    {
      name: 'blackhole with lists and a protocol, on containers by label',
      inputs: {
        [ATTACK_TYPE_SELECT]: 'blackhole',
        [arg('blackhole', 'hostnames')]: 'api.example.com, db.example.com',
        [arg('blackhole', 'ipaddresses')]: '10.0.0.0/8',
        [arg('blackhole', 'protocol')]: 'TCP',
        [ATTACK_TARGET_KIND]: 'labels',
        [ATTACK_TARGET_VALUES]: 'app=checkout',
      },
      args: ['-h', 'api.example.com,db.example.com', '-i', '10.0.0.0/8', '-P', 'TCP', '-l', '60'],
      command:
        'attack blackhole -h api.example.com,db.example.com -i 10.0.0.0/8 -P TCP -l 60 --target-labels app=checkout',
    },
    {
      name: 'process_killer with values that need quoting',
      inputs: {
        [ATTACK_TYPE_SELECT]: 'process_killer',
        [arg('process_killer', 'process')]: 'java -jar "app.jar"',
        [arg('process_killer', 'full')]: 'true',
        [ATTACK_TARGET_KIND]: 'tags',
        [ATTACK_TARGET_VALUES]: "team=it's ours",
        [ATTACK_TEAM]: 'team-2',
      },
      args: ['-p', 'java -jar "app.jar"', '-f', '-l', '60'],
      command: `attack process_killer -p "java -jar "'"'"app.jar"'"'"" -f -l 60 --target-tags "team=it's ours" --team team-2`,
    },
    {
      name: 'a type with a long-only flag',
      inputs: {
        [ATTACK_TYPE_SELECT]: 'http_probe',
        [arg('http_probe', 'url')]: 'https://example.com/health',
        [arg('http_probe', 'ratio')]: '0.25',
        [ATTACK_TARGET_KIND]: 'hosts',
        [ATTACK_TARGET_VALUES]: 'h1',
      },
      args: ['-u', 'https://example.com/health', '--ratio', '0.25'],
      command: 'attack http_probe -u https://example.com/health --ratio 0.25 --target-hosts h1',
    },
  ];

  it.each(cases)('$name', ({ inputs, args, command }) => {
    const built = request(inputs);
    expect(built.args).toEqual(args);
    expect(built.yes).toBe(false);
    expect(equivalentCommand(built)).toBe(command);
    expect(parsedEquivalent(built)).toStrictEqual(built);
  });

  it('takes the length from the length field, or the default', () => {
    expect(
      request({ [ATTACK_TYPE_SELECT]: 'latency', [ATTACK_LENGTH]: '120', [ATTACK_TARGET_KIND]: 'all' }).lengthSeconds,
    ).toBe(120);
    // No length typed: the default is sent explicitly, so what runs is what the preview showed.
    expect(
      request({ [ATTACK_TYPE_SELECT]: 'latency', [ATTACK_LENGTH]: '', [ATTACK_TARGET_KIND]: 'all' }),
    ).toMatchObject({ args: ['-l', '60'], lengthSeconds: 60 });
    expect(request({ [ATTACK_TYPE_SELECT]: 'shutdown', [ATTACK_TARGET_KIND]: 'all' }).lengthSeconds).toBeUndefined();
  });

  it('leaves the team undefined when none was chosen', () => {
    expect(request({ [ATTACK_TYPE_SELECT]: 'cpu', [ATTACK_TARGET_KIND]: 'all' }).team).toBeUndefined();
  });

  it('ignores values of another type left in the submission', () => {
    const built = request({
      [ATTACK_TYPE_SELECT]: 'cpu',
      [arg('memory', 'percent')]: '50',
      [ATTACK_TARGET_KIND]: 'all',
    });
    expect(built.args).toEqual(['-l', '60']);
  });
});

describe('builderToRequest field errors', () => {
  const all = { [ATTACK_TARGET_KIND]: 'all' };
  const cases: {
    name: string;
    inputs: Record<string, string | undefined>;
    max?: number;
    errors: Record<string, string | RegExp>;
  }[] = [
    { name: 'no type', inputs: { ...all }, errors: { [ATTACK_TYPE_SELECT]: 'Choose an attack type.' } },
    {
      name: 'a type that is gone',
      inputs: { [ATTACK_TYPE_SELECT]: 'warp', ...all },
      errors: { [ATTACK_TYPE_SELECT]: /warp is no longer an attack type/ },
    },
    {
      name: 'an integer with decimals',
      inputs: { [ATTACK_TYPE_SELECT]: 'cpu', [arg('cpu', 'cores')]: '1.5', ...all },
      errors: { [arg('cpu', 'cores')]: 'Expected a whole number, at least 1.' },
    },
    {
      name: 'a zero length',
      inputs: { [ATTACK_TYPE_SELECT]: 'cpu', [ATTACK_LENGTH]: '0', ...all },
      errors: { [ATTACK_LENGTH]: 'Expected a whole number of seconds, at least 1.' },
    },
    {
      name: 'a length over the limit',
      inputs: { [ATTACK_TYPE_SELECT]: 'cpu', [ATTACK_LENGTH]: '4000', ...all },
      errors: { [ATTACK_LENGTH]: 'Attacks may run at most 3600 seconds here.' },
    },
    {
      name: 'a default length over the limit',
      inputs: { [ATTACK_TYPE_SELECT]: 'cpu', ...all },
      max: 30,
      errors: { [ATTACK_LENGTH]: /cpu runs 60 seconds by default/ },
    },
    {
      name: 'an enum value not offered',
      inputs: { [ATTACK_TYPE_SELECT]: 'dns', [arg('dns', 'protocol')]: 'ICMP', ...all },
      errors: { [arg('dns', 'protocol')]: 'Expected one of TCP, UDP.' },
    },
    {
      name: 'a bad address in a list',
      inputs: { [ATTACK_TYPE_SELECT]: 'dns', [arg('dns', 'ipaddresses')]: '10.0.0.1, nope', ...all },
      errors: { [arg('dns', 'ipaddresses')]: /IP address or CIDR block, .*or several separated by commas/ },
    },
    {
      name: 'a URL that is not http',
      inputs: { [ATTACK_TYPE_SELECT]: 'http_probe', [arg('http_probe', 'url')]: 'ftp://x', ...all },
      errors: { [arg('http_probe', 'url')]: 'Expected an http or https URL.' },
    },
    {
      name: 'a required flag left empty',
      inputs: { [ATTACK_TYPE_SELECT]: 'http_probe', [arg('http_probe', 'url')]: '  ', ...all },
      errors: { [arg('http_probe', 'url')]: 'Required.' },
    },
    {
      name: 'no target kind',
      inputs: { [ATTACK_TYPE_SELECT]: 'cpu' },
      errors: { [ATTACK_TARGET_KIND]: 'Choose what to attack.' },
    },
    {
      name: 'tags left empty',
      inputs: { [ATTACK_TYPE_SELECT]: 'cpu', [ATTACK_TARGET_KIND]: 'tags' },
      errors: { [ATTACK_TARGET_VALUES]: 'Enter one or more key=value pairs.' },
    },
    {
      name: 'hosts left empty',
      inputs: { [ATTACK_TYPE_SELECT]: 'cpu', [ATTACK_TARGET_KIND]: 'hosts', [ATTACK_TARGET_VALUES]: ' ' },
      errors: { [ATTACK_TARGET_VALUES]: 'Enter one or more ids.' },
    },
    {
      name: 'a tag without a value',
      inputs: { [ATTACK_TYPE_SELECT]: 'cpu', [ATTACK_TARGET_KIND]: 'tags', [ATTACK_TARGET_VALUES]: 'role' },
      errors: { [ATTACK_TARGET_VALUES]: /is not a key=value pair/ },
    },
    {
      name: 'an empty id',
      inputs: { [ATTACK_TYPE_SELECT]: 'cpu', [ATTACK_TARGET_KIND]: 'containers', [ATTACK_TARGET_VALUES]: 'a,,b' },
      errors: { [ATTACK_TARGET_VALUES]: /no empty item/ },
    },
    {
      name: 'values typed with every client chosen',
      inputs: { [ATTACK_TYPE_SELECT]: 'cpu', [ATTACK_TARGET_KIND]: 'all', [ATTACK_TARGET_VALUES]: 'role=web' },
      errors: { [ATTACK_TARGET_VALUES]: /Every active client is chosen/ },
    },
    {
      name: 'a count with exact hosts',
      inputs: {
        [ATTACK_TYPE_SELECT]: 'cpu',
        [ATTACK_TARGET_KIND]: 'hosts',
        [ATTACK_TARGET_VALUES]: 'h1',
        [ATTACK_TARGET_COUNT]: '2',
      },
      errors: { [ATTACK_TARGET_COUNT]: /only goes with/ },
    },
    {
      name: 'a count with every client',
      inputs: { [ATTACK_TYPE_SELECT]: 'cpu', [ATTACK_TARGET_KIND]: 'all', [ATTACK_TARGET_COUNT]: '2' },
      errors: { [ATTACK_TARGET_COUNT]: /only goes with/ },
    },
    {
      name: 'a zero count',
      inputs: {
        [ATTACK_TYPE_SELECT]: 'cpu',
        [ATTACK_TARGET_KIND]: 'tags',
        [ATTACK_TARGET_VALUES]: 'a=b',
        [ATTACK_TARGET_COUNT]: '0',
      },
      errors: { [ATTACK_TARGET_COUNT]: /at least 1/ },
    },
    {
      name: 'several fields at once',
      inputs: {
        [ATTACK_TYPE_SELECT]: 'cpu',
        [arg('cpu', 'cores')]: 'x',
        [arg('cpu', 'percent')]: 'y',
        [ATTACK_TARGET_KIND]: 'tags',
      },
      errors: {
        [arg('cpu', 'cores')]: 'Expected a whole number, at least 1.',
        [arg('cpu', 'percent')]: 'Expected a whole number from 1 to 100.',
        [ATTACK_TARGET_VALUES]: 'Enter one or more key=value pairs.',
      },
    },
  ];

  it.each(cases)('$name', ({ inputs, max, errors: expected }) => {
    const found = errors(inputs, max);
    expect(Object.keys(found).sort()).toEqual(Object.keys(expected).sort());
    for (const [field, message] of Object.entries(expected)) {
      if (typeof message === 'string') expect(found[field]).toBe(message);
      else expect(found[field]).toMatch(message);
    }
  });

  it('keys every error by an input block of the modal, as built before a target kind is chosen', () => {
    for (const { inputs, max } of cases) {
      const view = attackBuilderModal({
        catalogue,
        selectedType: inputs[ATTACK_TYPE_SELECT],
        teams,
        maxAttackSeconds: max ?? limits.maxAttackSeconds,
      });
      const inputBlocks = new Set(view.blocks.filter((block) => block.type === 'input').map((block) => block.block_id));
      for (const field of Object.keys(errors(inputs, max))) expect(inputBlocks).toContain(field);
    }
  });
});

describe("the builder's guards, service and Kubernetes targets", () => {
  const monitoring = { integrationA: 'acme-metrics', domainA: undefined, uriB: undefined };
  const build = (inputs: Record<string, string | undefined>) =>
    builderToRequest(inputs, catalogue, { ...limits, monitoring, command: '/chaos' });
  const base = { [ATTACK_TYPE_SELECT]: 'cpu', [ATTACK_LENGTH]: '30', [ATTACK_TEAM]: 'team-1' };

  it('reads guards separated by commas, and says on the field what is wrong', () => {
    expect(build({ ...base, [ATTACK_TARGET_KIND]: 'all', [ATTACK_GUARDS]: 'a:1234567, a:7654321' })).toMatchObject({
      guards: [
        { kind: 'a', monitorId: '1234567' },
        { kind: 'a', monitorId: '7654321' },
      ],
    });
    expect(build({ ...base, [ATTACK_TARGET_KIND]: 'all', [ATTACK_GUARDS]: 'b:CheckoutErrorRate' })).toEqual({
      errors: { [ATTACK_GUARDS]: expect.stringContaining('Alert guards need MONITORING_B_URI') },
    });
  });

  it('gives the service and Kubernetes targets the command gives', () => {
    const service = build({
      ...base,
      [ATTACK_TARGET_KIND]: 'service',
      [ATTACK_TARGET_VALUES]: 'svc-1',
      [ATTACK_TARGET_PERCENT]: '40',
      [ATTACK_INCLUDE_NEW]: 'true',
    });
    expect(service).toMatchObject({
      target: { kind: 'service', serviceId: 'svc-1', percent: 40, includeNewTargets: true },
    });
    expect(parsedEquivalent(service as AttackRequest).target).toEqual((service as AttackRequest).target);
    const k8s = build({
      ...base,
      [ATTACK_TARGET_KIND]: 'kubernetes',
      [ATTACK_TARGET_VALUES]: 'c/ns/Deployment/web, c/ns/StatefulSet/db',
      [ATTACK_TARGET_COUNT]: '1',
    });
    expect(k8s).toMatchObject({ target: { kind: 'kubernetes', count: 1, objects: [{ name: 'web' }, { name: 'db' }] } });
    expect(parsedEquivalent(k8s as AttackRequest).target).toEqual((k8s as AttackRequest).target);
  });

  it('refuses a service id that could not name one service', () => {
    for (const text of ['../teams', 'svc?x=1', 'svc/1']) {
      expect(build({ ...base, [ATTACK_TARGET_KIND]: 'service', [ATTACK_TARGET_VALUES]: text })).toEqual({
        errors: { [ATTACK_TARGET_VALUES]: expect.stringContaining('A service id has letters, digits, - and _ only') },
      });
    }
  });

  it('refuses a count with a percent, a percent with hosts, and a service for a type that cannot run on one', () => {
    expect(
      build({
        ...base,
        [ATTACK_TARGET_KIND]: 'kubernetes',
        [ATTACK_TARGET_VALUES]: 'c/ns/D/w',
        [ATTACK_TARGET_COUNT]: '1',
        [ATTACK_TARGET_PERCENT]: '5',
      }),
    ).toEqual({
      errors: { [ATTACK_TARGET_PERCENT]: 'Give a count or a percent, not both.' },
    });
    expect(
      build({ ...base, [ATTACK_TARGET_KIND]: 'hosts', [ATTACK_TARGET_VALUES]: 'a', [ATTACK_TARGET_PERCENT]: '5' }),
    ).toEqual({
      errors: { [ATTACK_TARGET_PERCENT]: expect.stringContaining('only goes with a service or Kubernetes objects') },
    });
    expect(
      build({
        [ATTACK_TYPE_SELECT]: 'http_probe',
        [arg('http_probe', 'url')]: 'https://x.example',
        [ATTACK_TARGET_KIND]: 'service',
        [ATTACK_TARGET_VALUES]: 'svc-1',
      }),
    ).toEqual({
      errors: { [ATTACK_TARGET_KIND]: 'http_probe attacks cannot target a service; choose another target.' },
    });
  });
});
