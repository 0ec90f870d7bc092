// Client address ranges (CIDR) of an API key: parsed and matched with Node's own net.BlockList.
import { BlockList, isIP } from 'node:net';

/** `a.b.c.d/n`, `x::y/n`, or a bare address (one host); null when it is none of these. */
export function parseCidr(text: string): { address: string; prefix: number; family: 'ipv4' | 'ipv6' } | null {
  const [address = '', prefixText, ...rest] = text.trim().split('/');
  if (rest.length > 0) return null;
  const v = isIP(address);
  if (v === 0) return null;
  const max = v === 4 ? 32 : 128;
  if (prefixText !== undefined && !/^[0-9]{1,3}$/.test(prefixText)) return null;
  const prefix = prefixText === undefined ? max : Number(prefixText);
  if (prefix > max) return null;
  return { address, prefix, family: v === 4 ? 'ipv4' : 'ipv6' };
}

/** A matcher over ranges already checked with parseCidr; an IPv4-mapped IPv6 client matches its IPv4 range. */
export function cidrMatcher(cidrs: readonly string[]): (address: string) => boolean {
  const list = new BlockList();
  for (const text of cidrs) {
    const c = parseCidr(text);
    if (c) list.addSubnet(c.address, c.prefix, c.family);
  }
  return (address) => {
    const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(address)?.[1];
    const plain = mapped ?? address;
    const v = isIP(plain);
    if (v === 0) return false;
    return list.check(plain, v === 4 ? 'ipv4' : 'ipv6');
  };
}
