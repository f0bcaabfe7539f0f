import { BlockList, isIP } from 'node:net';

/** A block of addresses, as TRUSTED_PROXIES lists them (`10.0.0.0/8`, `fd00::/8`, one address). */
export interface Subnet {
  address: string;
  prefix: number;
  family: 'ipv4' | 'ipv6';
}

/** `10.0.0.0/8` or a single address as a subnet, or undefined when it is neither. */
export function parseSubnet(text: string): Subnet | undefined {
  const [address = '', prefixText, ...rest] = text.trim().split('/');
  const version = isIP(address);
  if (!version || rest.length) return undefined;
  const bits = version === 4 ? 32 : 128;
  if (prefixText !== undefined && !/^\d{1,3}$/.test(prefixText)) return undefined;
  const prefix = prefixText === undefined ? bits : Number(prefixText);
  if (prefix > bits) return undefined;
  return { address, prefix, family: version === 4 ? 'ipv4' : 'ipv6' };
}

/** The proxies whose X-Forwarded-For is believed. */
export function trustedProxies(subnets: readonly Subnet[]): BlockList {
  const list = new BlockList();
  for (const subnet of subnets) list.addSubnet(subnet.address, subnet.prefix, subnet.family);
  return list;
}

/** An IPv4 peer as Node reports it on a dual-stack socket (`::ffff:10.0.0.1`) is that IPv4 address. */
function plain(address: string): string {
  const v4 = address.replace(/^::ffff:/i, '');
  return isIP(v4) === 4 ? v4 : address;
}

function trusted(address: string, proxies: BlockList): boolean {
  const version = isIP(address);
  return version !== 0 && proxies.check(address, version === 4 ? 'ipv4' : 'ipv6');
}

/**
 * The address a limit is counted against: the socket's peer, unless that peer is a trusted proxy;
 * then X-Forwarded-For is read from the right (each proxy appends the address it saw) and the
 * first address that is not a trusted proxy is the client. A client that is not a trusted proxy
 * cannot choose the address it is counted under, whatever header it sends.
 */
export function clientAddress(peer: string | undefined, forwarded: string | string[] | undefined, proxies: BlockList) {
  let client = plain(peer ?? 'unknown');
  const hops = (Array.isArray(forwarded) ? forwarded.join(',') : (forwarded ?? ''))
    .split(',')
    .map((hop) => hop.trim())
    .filter(Boolean);
  while (trusted(client, proxies)) {
    const next = hops.pop();
    if (next === undefined || !isIP(plain(next))) break;
    client = plain(next);
  }
  return client;
}
