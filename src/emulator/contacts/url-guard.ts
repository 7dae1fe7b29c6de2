import { BlockList, isIP } from 'node:net';
import dns from 'node:dns';

/**
 * Outbound URL guard (server-side request forgery): http(s) to public unicast addresses only
 * (loopback with `allowLoopback`), checked on accept, on every redirect and when the socket
 * connects, so a name that later resolves to a private address is still refused.
 */

export type AddressClass = 'public' | 'loopback' | 'private' | 'link-local' | 'unspecified' | 'cgnat' | 'multicast' | 'reserved';

export interface GuardOptions {
  allowLoopback: boolean;
  /** Resolver (tests replace it); defaults to dns.lookup with `all: true`. */
  resolve?: (host: string) => Promise<Array<{ address: string; family: number }>>;
}

export class UrlRefused extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'UrlRefused';
  }
}

function list(family: 'ipv4' | 'ipv6', ranges: Array<[string, number]>): BlockList {
  const b = new BlockList();
  for (const [net, prefix] of ranges) b.addSubnet(net, prefix, family);
  return b;
}

// IPv4 special-purpose ranges (IANA registry), by class.
const V4: Array<[Exclude<AddressClass, 'public'>, BlockList]> = [
  ['unspecified', list('ipv4', [['0.0.0.0', 8]])],
  ['loopback', list('ipv4', [['127.0.0.0', 8]])],
  [
    'private',
    list('ipv4', [
      ['10.0.0.0', 8],
      ['172.16.0.0', 12],
      ['192.168.0.0', 16],
    ]),
  ],
  ['link-local', list('ipv4', [['169.254.0.0', 16]])],
  ['cgnat', list('ipv4', [['100.64.0.0', 10]])],
  ['multicast', list('ipv4', [['224.0.0.0', 4]])],
  [
    'reserved',
    list('ipv4', [
      ['192.0.0.0', 24], // IETF protocol assignments
      ['192.0.2.0', 24], // TEST-NET-1
      ['192.88.99.0', 24], // 6to4 relay anycast
      ['198.18.0.0', 15], // benchmarking
      ['198.51.100.0', 24], // TEST-NET-2
      ['203.0.113.0', 24], // TEST-NET-3
      ['240.0.0.0', 4], // reserved, including 255.255.255.255
    ]),
  ],
];

// IPv6: only global unicast (2000::/3) can be public, minus its special blocks.
const V6_GLOBAL = list('ipv6', [['2000::', 3]]);
const V6: Array<[Exclude<AddressClass, 'public'>, BlockList]> = [
  [
    'private',
    list('ipv6', [
      ['fc00::', 7],
      ['fec0::', 10],
    ]),
  ], // unique local; deprecated site-local
  ['link-local', list('ipv6', [['fe80::', 10]])],
  ['multicast', list('ipv6', [['ff00::', 8]])],
  [
    'reserved',
    list('ipv6', [
      ['2001::', 23], // IETF protocol assignments (Teredo, benchmarking, ORCHID)
      ['2001:db8::', 32], // documentation
      ['2002::', 16], // 6to4
      ['3fff::', 20], // documentation
    ]),
  ],
];

/** The 8 groups of an IPv6 address (zone id dropped, dotted IPv4 tail accepted). */
export function ipv6Groups(address: string): number[] {
  let a = address.replace(/^\[|\]$/g, '');
  const zone = a.indexOf('%');
  if (zone >= 0) a = a.slice(0, zone);
  const dotted = /(\d+)\.(\d+)\.(\d+)\.(\d+)$/.exec(a);
  if (dotted) {
    const [o1, o2, o3, o4] = dotted.slice(1).map(Number) as [number, number, number, number];
    a = `${a.slice(0, dotted.index)}${((o1 << 8) | o2).toString(16)}:${((o3 << 8) | o4).toString(16)}`;
  }
  const [head, tail] = a.includes('::') ? (a.split('::') as [string, string]) : [a, undefined];
  const h = head ? head.split(':') : [];
  const t = tail === undefined ? [] : tail ? tail.split(':') : [];
  const fill = tail === undefined ? [] : new Array<string>(8 - h.length - t.length).fill('0');
  return [...h, ...fill, ...t].map((g) => parseInt(g, 16));
}

function v4FromGroups(hi: number, lo: number): string {
  return `${hi >> 8}.${hi & 0xff}.${lo >> 8}.${lo & 0xff}`;
}

/** Classifies an IP address (either family). Anything that is not an IP literal is `reserved`. */
export function classifyAddress(address: string): AddressClass {
  const bare = address.replace(/^\[|\]$/g, '');
  const family = isIP(bare.split('%')[0]!);
  if (family === 4) {
    for (const [cls, b] of V4) if (b.check(bare, 'ipv4')) return cls;
    return 'public';
  }
  if (family !== 6) return 'reserved';
  const g = ipv6Groups(bare);
  const zeroUpTo = (n: number) => g.slice(0, n).every((x) => x === 0);
  if (g.every((x) => x === 0)) return 'unspecified';
  if (zeroUpTo(7) && g[7] === 1) return 'loopback';
  // IPv4-mapped (::ffff:a.b.c.d) and NAT64 (64:ff9b::a.b.c.d): the embedded IPv4 address decides.
  if (zeroUpTo(5) && g[5] === 0xffff) return classifyAddress(v4FromGroups(g[6]!, g[7]!));
  if (g[0] === 0x64 && g[1] === 0xff9b && g.slice(2, 6).every((x) => x === 0)) return classifyAddress(v4FromGroups(g[6]!, g[7]!));
  const norm = g.map((x) => x.toString(16)).join(':');
  for (const [cls, b] of V6) if (b.check(norm, 'ipv6')) return cls;
  return V6_GLOBAL.check(norm, 'ipv6') ? 'public' : 'reserved';
}

/** Why an address is refused, or undefined when it may be contacted. */
export function refusalFor(address: string, allowLoopback: boolean): string | undefined {
  const cls = classifyAddress(address);
  if (cls === 'public' || (cls === 'loopback' && allowLoopback)) return undefined;
  return `${cls} address`;
}

function isLocalhostName(host: string): boolean {
  return host === 'localhost' || host.endsWith('.localhost');
}

const defaultResolve = (host: string) => dns.promises.lookup(host, { all: true, verbatim: true });

/**
 * Checks a URL before it is fetched: scheme http(s), and every address its host
 * resolves to may be contacted. Returns the parsed URL; throws UrlRefused.
 */
export async function checkUrl(raw: string, opts: GuardOptions): Promise<URL> {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new UrlRefused('not a valid absolute URL');
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    throw new UrlRefused(`scheme "${url.protocol.replace(/:$/, '')}" is not allowed; use http or https`);
  }
  const host = url.hostname
    .replace(/^\[|\]$/g, '')
    .replace(/\.$/, '')
    .toLowerCase();
  if (!host) throw new UrlRefused('the URL has no host');
  if (isIP(host.split('%')[0]!)) {
    const why = refusalFor(host, opts.allowLoopback);
    if (why) throw new UrlRefused(`host ${host} is a ${why}${hint(host, opts)}`);
    return url;
  }
  if (isLocalhostName(host)) {
    if (!opts.allowLoopback) throw new UrlRefused(`host ${host} is a loopback name${hint('127.0.0.1', opts)}`);
    return url;
  }
  let addresses: Array<{ address: string }>;
  try {
    addresses = await (opts.resolve ?? defaultResolve)(host);
  } catch (err) {
    throw new UrlRefused(`host ${host} does not resolve (${(err as NodeJS.ErrnoException).code ?? 'lookup failed'})`);
  }
  if (addresses.length === 0) throw new UrlRefused(`host ${host} does not resolve`);
  for (const a of addresses) {
    const why = refusalFor(a.address, opts.allowLoopback);
    if (why) throw new UrlRefused(`host ${host} resolves to ${a.address}, a ${why}${hint(a.address, opts)}`);
  }
  return url;
}

function hint(address: string, opts: GuardOptions): string {
  return !opts.allowLoopback && classifyAddress(address) === 'loopback' ? ' (start the emulator with --allow-loopback-urls to allow loopback)' : '';
}

type LookupCallback = (err: NodeJS.ErrnoException | null, address: string | dns.LookupAddress[], family?: number) => void;

/**
 * A `lookup` for net/tls.connect (undici's `connect` option) that refuses to
 * connect when any resolved address may not be contacted: the guard at connect
 * time, which closes the gap between the check and the connection (DNS rebinding).
 */
export function guardedLookup(allowLoopback: boolean) {
  return (hostname: string, options: dns.LookupOptions, callback: LookupCallback): void => {
    dns.lookup(hostname, { ...options, all: true }, (err, addresses) => {
      if (err) return callback(err, []);
      const list = addresses as dns.LookupAddress[];
      const bad = list.find((a) => refusalFor(a.address, allowLoopback));
      if (bad || list.length === 0) {
        const e: NodeJS.ErrnoException = new Error(
          bad
            ? `refused to connect to ${hostname}: it resolves to ${bad.address}, a ${refusalFor(bad.address, allowLoopback)}`
            : `${hostname} does not resolve`,
        );
        e.code = 'ERR_URL_NOT_ALLOWED';
        return callback(e, []);
      }
      if (options.all) return callback(null, list);
      return callback(null, list[0]!.address, list[0]!.family);
    });
  };
}
