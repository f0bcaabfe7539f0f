import { BlockList, isIP } from 'node:net';

// The HTTP requests the process serves, Slack's and the login page's: whom each is counted
// against, and the turns of the event loop Slack's deliveries get first.

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

/** Addresses a proxy in front of the bot has: private networks, carrier-grade NAT, link-local, loopback. */
const privateAddresses = trustedProxies(
  ['10.0.0.0/8', '172.16.0.0/12', '192.168.0.0/16', '100.64.0.0/10', '169.254.0.0/16', '127.0.0.0/8']
    .concat(['fc00::/7', 'fe80::/10', '::1/128'])
    .map((text) => parseSubnet(text)!),
);

/** Page requests from one private address, each with X-Forwarded-For, after which a missing TRUSTED_PROXIES is named. */
export const proxyHintAfter = 5;

/**
 * Start-up cannot see the page's clients, so this watches them: with no TRUSTED_PROXIES, when
 * page requests keep arriving from one private address carrying X-Forwarded-For, that address
 * is a proxy whose clients all count as one, and every per-address limit is shared by all of
 * them. `warn` is called once, with that address; any request from elsewhere, or without the
 * header, starts the count again.
 */
export function untrustedProxyWatch(
  proxies: readonly Subnet[],
  warn: (proxy: string) => void,
): (peer: string | undefined, forwarded: string | string[] | undefined) => void {
  let last: string | undefined;
  let seen = 0;
  let warned = proxies.length > 0;
  return (peer, forwarded) => {
    if (warned) return;
    const address = plain(peer ?? '');
    if (!forwarded || !trusted(address, privateAddresses)) {
      last = undefined;
      seen = 0;
      return;
    }
    seen = address === last ? seen + 1 : 1;
    last = address;
    if (seen < proxyHintAfter) return;
    warned = true;
    warn(address);
  };
}

/**
 * Slack's requests go first. Node takes one new connection per turn of its event loop, so a burst
 * of deliveries on new connections is taken no faster than the turns go by: a turn spent parsing
 * a page of attacks for a poll pass, or doing a command's work after its ack, holds every
 * connection still waiting by that much. Work that nobody waits on within Slack's 3 s gives way:
 * while deliveries come in a burst it waits, then goes on one piece per turn, in the order it came.
 * A delivery on its own is no burst: work after it goes on at the next turn, as it would have.
 */
export class Arrivals {
  /** A pause this long between deliveries ends a burst. */
  static readonly quietMs = 5;
  /** A burst has the event loop to itself this long at most; past it, work waiting shares the turns. */
  static readonly atMostMs = 1_000;

  #last = Number.NEGATIVE_INFINITY;
  #burstStarted = Number.NEGATIVE_INFINITY;
  /** Deliveries since the burst started: one alone is not a burst. */
  #inBurst = 0;
  readonly #waiting: (() => void)[] = [];
  #releasing = false;
  readonly #now: () => number;

  constructor(now: () => number = () => performance.now()) {
    this.#now = now;
  }

  /**
   * A delivery arrived: a request whose Slack signature verified. Nothing else counts, so a
   * flood of probes or unsigned requests cannot hold work back.
   */
  arrived(): void {
    const now = this.#now();
    if (now - this.#last >= Arrivals.quietMs) {
      this.#burstStarted = now;
      this.#inBurst = 0;
    }
    this.#inBurst++;
    this.#last = now;
  }

  /**
   * Resolves on a later turn of the event loop, after everything that gave way before it: at once
   * when the last delivery came alone, else once deliveries have paused for quietMs or their burst
   * has gone on for atMostMs.
   */
  giveWay(): Promise<void> {
    return new Promise((go) => {
      this.#waiting.push(go);
      if (!this.#releasing) void this.#release();
    });
  }

  /** Lets the waiting go one per turn, so that a connection waits for one piece of work at most. */
  async #release(): Promise<void> {
    this.#releasing = true;
    try {
      while (this.#waiting.length) {
        await new Promise((turn) => setImmediate(turn));
        const wait =
          this.#inBurst < 2
            ? 0
            : Math.min(this.#last + Arrivals.quietMs, this.#burstStarted + Arrivals.atMostMs) - this.#now();
        if (wait > 0) await new Promise((later) => setTimeout(later, Math.ceil(wait)));
        else this.#waiting.shift()!();
      }
    } finally {
      this.#releasing = false;
    }
  }
}

/** The process's deliveries: one event loop, so one record for every server and job in it. */
export const arrivals = new Arrivals();
