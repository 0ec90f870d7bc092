// The address policy of the SSRF guard: which hosts and IP addresses the gateway refuses to reach.
// Pure decisions (no DNS, no sockets): the operator's allow-list, then the range policy that lets
// only ordinary public unicast through. `address-guard.ts` applies it to URLs and sockets.
import { isIP } from 'node:net';
import ipaddr from 'ipaddr.js';

export type IpAddress = ipaddr.IPv4 | ipaddr.IPv6;

// Allow-list

const HOSTNAME_LABEL = /^[a-z0-9_](?:[a-z0-9_-]{0,61}[a-z0-9_])?$/;

/** Lower-cases, strips IPv6 brackets and the root dot, so `[::1]`, `Example.COM.` compare equal. */
/** Lower-cases, strips IPv6 brackets and the root dot, so `[::1]`, `Example.COM.` compare equal. */
export function normalizeHost(host: string): string {
  let h = host.trim().toLowerCase();
  if (h.startsWith('[') && h.endsWith(']')) h = h.slice(1, -1);
  if (h.endsWith('.')) h = h.slice(0, -1);
  return h;
}

/** One allow-list entry in canonical form, or an Error saying what is wrong with it. */
function normalizeAllowEntry(raw: string): string {
  const entry = normalizeHost(raw);
  const slash = entry.indexOf('/');
  if (slash !== -1) {
    // Strict forms only (no `127.1/8`): an operator's typo must fail at boot, not widen the list.
    const addr = entry.slice(0, slash);
    const bitsText = entry.slice(slash + 1);
    const family = isIP(addr);
    const bits = Number(bitsText);
    if (family !== 0 && /^\d{1,3}$/.test(bitsText) && bits <= (family === 4 ? 32 : 128)) {
      return `${ipaddr.parse(addr).toString()}/${bits}`;
    }
  } else if (isIP(entry) !== 0) {
    return ipaddr.parse(entry).toString();
  } else if (entry.length > 0 && entry.length <= 253 && entry.split('.').every((l) => HOSTNAME_LABEL.test(l))) {
    return entry;
  }
  throw new Error(`invalid allow-list entry "${raw.trim()}": expected a hostname, an IP address or a CIDR`);
}

/**
 * Parses ZAPGATE_ALLOW_HOSTS: comma-separated hostnames, IP addresses and CIDRs (v4 or v6).
 * Returns the entries in canonical form; throws on an entry that is none of those.
 */
export function parseAllowList(csv: string): string[] {
  return csv
    .split(',')
    .map((s) => s.trim())
    .filter((s) => s.length > 0)
    .map(normalizeAllowEntry);
}

export interface AllowList {
  hosts: Set<string>;
  ranges: [ipaddr.IPv4 | ipaddr.IPv6, number][];
}

export function compileAllowList(entries: readonly string[]): AllowList {
  const list: AllowList = { hosts: new Set(), ranges: [] };
  for (const entry of entries.map(normalizeAllowEntry)) {
    if (entry.includes('/')) list.ranges.push(ipaddr.parseCIDR(entry));
    else if (isIP(entry) !== 0) {
      const addr = ipaddr.parse(entry);
      list.ranges.push([addr, addr.kind() === 'ipv4' ? 32 : 128]);
    } else list.hosts.add(entry);
  }
  return list;
}

/** Whether the allow-list admits this address (an IP entry or a CIDR containing it). */
export function allowsAddress(list: AllowList, addr: IpAddress): boolean {
  // `127.0.0.1` in the list also admits its IPv4-mapped spelling `::ffff:127.0.0.1`.
  const forms = [addr];
  if (addr.kind() === 'ipv6' && (addr as ipaddr.IPv6).isIPv4MappedAddress()) {
    forms.push((addr as ipaddr.IPv6).toIPv4Address());
  }
  return list.ranges.some(([net, bits]) => forms.some((f) => f.kind() === net.kind() && f.match(net, bits)));
}

// ---------------------------------------------------------------------------------------------
// Range policy: only ordinary public unicast is reachable; everything else fails closed.

const IPV4_LABELS: Record<string, string> = {
  unspecified: 'unspecified address',
  broadcast: 'broadcast address',
  multicast: 'multicast address',
  linkLocal: 'link-local address',
  loopback: 'loopback address',
  carrierGradeNat: 'carrier-grade NAT address',
  private: 'private address',
};

const IPV6_LABELS: Record<string, string> = {
  unspecified: 'unspecified address',
  linkLocal: 'link-local address',
  multicast: 'multicast address',
  loopback: 'loopback address',
  uniqueLocal: 'private (unique local) address',
  deprecatedSiteLocal: 'site-local address',
};

// Cloud instance metadata endpoints: already inside blocked ranges, named so the reason says so.
const METADATA = new Set(['169.254.169.254', 'fd00:ec2::254']);

function v4FromParts(hi: number, lo: number): ipaddr.IPv4 {
  return new ipaddr.IPv4([hi >> 8, hi & 0xff, lo >> 8, lo & 0xff]);
}

function withArticle(phrase: string): string {
  return `${/^[aeiou]/i.test(phrase) ? 'an' : 'a'} ${phrase}`;
}

/** Why an IPv4 address is blocked (a phrase with its article), or null when it is public unicast. */
function classifyV4(addr: ipaddr.IPv4): string | null {
  if (METADATA.has(addr.toString())) return 'a cloud metadata address';
  const range = addr.range();
  if (range === 'unicast') return null;
  return withArticle(IPV4_LABELS[range] ?? 'reserved address');
}

/** The same for IPv6, looking through every form that carries an IPv4 address inside it. */
function classifyV6(addr: ipaddr.IPv6): string | null {
  if (METADATA.has(addr.toString())) return 'a cloud metadata address';
  const p = addr.parts as [number, number, number, number, number, number, number, number];
  const embedded = (via: string, ...v4s: ipaddr.IPv4[]): string | null => {
    for (const v4 of v4s) {
      const why = classifyV4(v4);
      if (why !== null) return `${withArticle(via)} address embedding ${why} (${v4.toString()})`;
    }
    return null;
  };
  const range = addr.range();
  switch (range) {
    case 'ipv4Mapped':
      return embedded('IPv4-mapped', v4FromParts(p[6], p[7]));
    case 'rfc6145':
      return embedded('IPv4-translated', v4FromParts(p[6], p[7]));
    case 'rfc6052':
      // Only the well-known /96 prefix has the IPv4 address in the low 32 bits; the local-use
      // 64:ff9b:1::/48 prefix is a private translator by definition.
      if (p[2] !== 0) return 'a local-use NAT64 address';
      return embedded('NAT64', v4FromParts(p[6], p[7]));
    case '6to4':
      return embedded('6to4', v4FromParts(p[1], p[2]));
    case 'teredo':
      // Server in bits 32–63; the client (the real destination) is stored bit-inverted in 96–127.
      return embedded('Teredo', v4FromParts(p[2], p[3]), v4FromParts(~p[6] & 0xffff, ~p[7] & 0xffff));
    case 'unicast':
      if (p[0] === 0 && p[1] === 0 && p[2] === 0 && p[3] === 0 && p[4] === 0 && p[5] === 0) {
        // ::a.b.c.d (deprecated IPv4-compatible); ipaddr.js calls these unicast.
        return 'a deprecated IPv4-compatible address';
      }
      // Global unicast is 2000::/3; anything else that ipaddr.js calls unicast is unassigned.
      return (p[0] & 0xe000) === 0x2000 ? null : 'a reserved address';
    default:
      return withArticle(IPV6_LABELS[range] ?? 'reserved address');
  }
}

/** Why an address is blocked (a phrase with its article), or null when it is public unicast. */
export function classifyAddress(addr: IpAddress): string | null {
  return addr.kind() === 'ipv4' ? classifyV4(addr as ipaddr.IPv4) : classifyV6(addr as ipaddr.IPv6);
}
