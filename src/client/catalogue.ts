/**
 * The attack types and their arguments: as the platform describes them (`GET /metadata`), or the
 * built-in catalogue when they cannot be read.
 */
import { z } from 'zod';
import { PlatformError, UnauthorizedError } from './errors.ts';
import type { CallContext, Request } from './request.ts';

/**
 * A bound on a numeric argument. The contract does not list `min` and `max`, but a platform may
 * send them; a number (or a numeric string) is kept, anything else is ignored.
 */
const bound = z
  .union([
    z.number(),
    z
      .string()
      .trim()
      .regex(/^-?\d+(\.\d+)?$/)
      .transform(Number),
  ])
  .nullish()
  .catch(null);

/** One argument of an attack type, as `GET /metadata` describes it (platform-contract.md). */
export const infraAttackArgSchema = z.looseObject({
  name: z.string(),
  short: z.string().nullish(),
  long: z.string().nullish(),
  info: z.string().nullish(),
  type: z.string().catch('String'),
  default: z.union([z.string(), z.number(), z.boolean()]).nullish(),
  required: z.boolean().nullish(),
  multiple: z.boolean().nullish(),
  options: z.array(z.string()).nullish(),
  min: bound,
  max: bound,
});

/** An attack type with its arguments (InfraAttackMetadata). */
export const infraAttackMetadataSchema = z.looseObject({
  name: z.string(),
  type: z.string().catch('Resource'),
  info: z.string().nullish(),
  usage: z.string().nullish(),
  args: z.array(infraAttackArgSchema).catch([]),
});

export type InfraAttackArg = z.infer<typeof infraAttackArgSchema>;
export type InfraAttackMetadata = z.infer<typeof infraAttackMetadataSchema>;

type ArgType = 'Boolean' | 'Enum' | 'Float' | 'Integer' | 'IP' | 'String' | 'URL';

function arg(
  name: string,
  short: string,
  type: ArgType,
  info: string,
  extra: { default?: string | number | boolean; required?: boolean; multiple?: boolean; options?: string[] } = {},
): InfraAttackArg {
  return {
    name,
    short,
    long: name,
    info,
    type,
    default: extra.default ?? null,
    required: extra.required ?? false,
    multiple: extra.multiple ?? false,
    options: extra.options ?? null,
  };
}

const length = arg('length', 'l', 'Integer', 'How long the attack runs, in seconds', { default: 60 });
const networkScope = [
  arg('device', 'd', 'String', 'Network interface to impact', { multiple: true }),
  arg('hostnames', 'h', 'String', 'Only impact traffic to these hostnames', { multiple: true }),
  arg('ipaddresses', 'i', 'IP', 'Only impact traffic to these IP addresses or CIDR blocks', { multiple: true }),
  arg('remote_ports', 'p', 'String', 'Only impact traffic to these remote ports', { multiple: true }),
  arg('local_ports', 'n', 'String', 'Only impact traffic from these local ports', { multiple: true }),
  arg('protocol', 'P', 'Enum', 'Only impact this protocol', { options: ['TCP', 'UDP', 'ICMP'] }),
];

/**
 * The common attack types, used when `GET /metadata` cannot be read, so that a typo is still
 * caught before anything is sent.
 */
export const builtInCatalogue: readonly InfraAttackMetadata[] = [
  {
    name: 'cpu',
    type: 'Resource',
    info: 'Consumes CPU',
    usage: 'cpu [-l length] [-c cores | -a] [-p percent]',
    args: [
      length,
      arg('cores', 'c', 'Integer', 'Number of cores to impact', { default: 1 }),
      arg('all_cores', 'a', 'Boolean', 'Impact every core'),
      arg('percent', 'p', 'Integer', 'Percent of each core to consume', { default: 100 }),
    ],
  },
  {
    name: 'memory',
    type: 'Resource',
    info: 'Consumes memory',
    usage: 'memory [-l length] (-g gigabytes | -m megabytes | -p percent)',
    args: [
      length,
      arg('gigabytes', 'g', 'Float', 'Gigabytes to consume'),
      arg('megabytes', 'm', 'Integer', 'Megabytes to consume'),
      arg('percent', 'p', 'Integer', 'Percent of total memory to consume'),
    ],
  },
  {
    name: 'disk',
    type: 'Resource',
    info: 'Fills a volume',
    usage: 'disk [-l length] [-d dir] [-p percent] [-w workers] [-b block_size]',
    args: [
      length,
      arg('dir', 'd', 'String', 'Directory on the volume to fill', { default: '/tmp' }),
      arg('percent', 'p', 'Integer', 'Percent of the volume to fill', { default: 100 }),
      arg('workers', 'w', 'Integer', 'Number of disk-write workers', { default: 1 }),
      arg('block_size', 'b', 'Integer', 'Block size in kilobytes', { default: 4 }),
    ],
  },
  {
    name: 'io',
    type: 'Resource',
    info: 'Puts read and write pressure on I/O devices',
    usage: 'io [-l length] [-d dir] [-m mode] [-w workers] [-s block_size] [-c block_count]',
    args: [
      length,
      arg('dir', 'd', 'String', 'Directory to read and write', { default: '/tmp' }),
      arg('mode', 'm', 'Enum', 'Read, write, or both', { default: 'rw', options: ['r', 'w', 'rw'] }),
      arg('workers', 'w', 'Integer', 'Number of I/O workers', { default: 1 }),
      arg('block_size', 's', 'Integer', 'Block size in kilobytes', { default: 4 }),
      arg('block_count', 'c', 'Integer', 'Blocks per operation', { default: 1 }),
    ],
  },
  {
    name: 'shutdown',
    type: 'State',
    info: 'Shuts down or reboots the host',
    usage: 'shutdown [-d delay] [-r]',
    args: [
      arg('delay', 'd', 'Integer', 'Minutes to wait before shutting down', { default: 1 }),
      arg('reboot', 'r', 'Boolean', 'Reboot instead of halting'),
    ],
  },
  {
    name: 'time_travel',
    type: 'State',
    info: 'Changes the host clock',
    usage: 'time_travel [-l length] [-o offset] [-n]',
    args: [
      length,
      arg('offset', 'o', 'Integer', 'Seconds to move the clock by', { default: 86400 }),
      arg('block_ntp', 'n', 'Boolean', 'Block NTP traffic while it runs'),
    ],
  },
  {
    name: 'process_killer',
    type: 'State',
    info: 'Kills matching processes',
    usage: 'process_killer [-l length] [-i interval] (-p process | -g group | -u user) [-f]',
    args: [
      length,
      arg('interval', 'i', 'Integer', 'Seconds between kills', { default: 5 }),
      arg('process', 'p', 'String', 'Process name or pattern to kill'),
      arg('group', 'g', 'String', 'Kill processes of this group'),
      arg('user', 'u', 'String', 'Kill processes of this user'),
      arg('full', 'f', 'Boolean', 'Match against the full command line'),
    ],
  },
  {
    name: 'blackhole',
    type: 'Network',
    info: 'Drops matching network traffic',
    usage: 'blackhole [-l length] [-h hosts] [-i ips] [-p ports] [-n ports] [-d device] [-P protocol]',
    args: [length, ...networkScope],
  },
  {
    name: 'latency',
    type: 'Network',
    info: 'Delays matching network traffic',
    usage: 'latency [-l length] [-m ms] [-h hosts] [-i ips] [-p ports] [-n ports] [-d device] [-P protocol]',
    args: [length, arg('ms', 'm', 'Integer', 'Milliseconds of delay to add', { default: 100 }), ...networkScope],
  },
  {
    name: 'packet_loss',
    type: 'Network',
    info: 'Drops or corrupts a share of matching traffic',
    usage:
      'packet_loss [-l length] [-r percent] [-c] [-h hosts] [-i ips] [-p ports] [-n ports] [-d device] [-P protocol]',
    args: [
      length,
      arg('rate', 'r', 'Integer', 'Percent of packets to drop', { default: 1 }),
      arg('corrupt', 'c', 'Boolean', 'Corrupt packets instead of dropping them'),
      ...networkScope,
    ],
  },
  {
    name: 'dns',
    type: 'Network',
    info: 'Blocks access to DNS servers',
    usage: 'dns [-l length] [-i ips] [-d device] [-P protocol]',
    args: [
      length,
      arg('ipaddresses', 'i', 'IP', 'DNS servers to block', { multiple: true }),
      arg('device', 'd', 'String', 'Network interface to impact', { multiple: true }),
      arg('protocol', 'P', 'Enum', 'Only impact this protocol', { options: ['TCP', 'UDP'] }),
    ],
  },
];

export interface AttackCatalogue {
  types: readonly InfraAttackMetadata[];
  /** `built-in` when the platform's metadata could not be read. */
  source: 'platform' | 'built-in';
}

export interface MetadataApi {
  /**
   * The platform's attack types, or the built-in catalogue when they cannot be read, so that
   * arguments are still checked. An expired session is not hidden: it still throws.
   */
  catalogue(): Promise<AttackCatalogue>;
}

export function metadataApi(request: Request, session: CallContext): MetadataApi {
  const list = () =>
    request({
      session,
      teamScoped: true,
      method: 'GET',
      path: '/metadata',
      schema: z.array(infraAttackMetadataSchema),
    });
  return {
    async catalogue() {
      try {
        const types = await list();
        if (types.length > 0) return { types, source: 'platform' };
      } catch (error) {
        if (!(error instanceof PlatformError) || error instanceof UnauthorizedError) throw error;
      }
      return { types: builtInCatalogue, source: 'built-in' };
    },
  };
}
