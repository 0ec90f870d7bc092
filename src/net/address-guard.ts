// SSRF guard: decides which webhook and media URLs the gateway may reach, and enforces it on the socket.
import { lookup } from 'node:dns/promises';
import type { IncomingHttpHeaders } from 'node:http';
import { isIP, type Socket } from 'node:net';
import ipaddr from 'ipaddr.js';
import { Agent, buildConnector, request } from 'undici';

export interface ResolvedAddress {
  address: string;
  family: number;
}

/** Resolves a hostname to every address it has (like `dns.lookup(host, {all: true})`). */
export type Resolver = (host: string) => Promise<ResolvedAddress[]>;

export interface AddressGuardOptions {
  /** Hostnames, IP addresses or CIDRs that bypass the range policy (ZAPGATE_ALLOW_HOSTS). */
  allowHosts: readonly string[];
  /** Also accept plain `http:` URLs (ZAPGATE_WEBHOOK_ALLOW_HTTP). */
  allowHttp: boolean;
  /** DNS, injectable so tests never touch the network. */
  resolve?: Resolver;
  /** Socket and TLS options for the guard's Agent (e.g. a test CA, a connect timeout). */
  connect?: buildConnector.BuildOptions;
}

type GuardDecision =
  | { ok: true; url: URL; addresses: ResolvedAddress[] }
  | { ok: false; reason: string };

type HostDecision = { ok: true; addresses: ResolvedAddress[] } | { ok: false; reason: string };

type AddressDecision = { ok: true } | { ok: false; reason: string };

export interface AddressGuard {
  /** Parses the URL, checks scheme and credentials, resolves the host and checks every address. */
  checkUrl(url: string | URL): Promise<GuardDecision>;
  /** Resolves a bare hostname or IP literal and checks every address it resolves to. */
  checkHost(host: string): Promise<HostDecision>;
  /** The range policy for one address; `host` lets an allow-listed hostname through. */
  checkAddress(ip: string, host?: string): AddressDecision;
  /** One shared undici Agent that only ever connects to addresses this guard accepts. */
  dispatcher(): Agent;
  /** Closes the shared Agent, if one was created. */
  close(): Promise<void>;
}

/** Base of the errors a guarded request can fail with; `reason` is safe to show to a user. */
class GuardedFetchError extends Error {
  readonly reason: string;
  constructor(reason: string, options?: ErrorOptions) {
    super(reason, options);
    this.name = new.target.name;
    this.reason = reason;
  }
}

/** The URL, a redirect hop, or the address actually connected to is not allowed. */
export class AddressRefusedError extends GuardedFetchError {}

/** The response body is larger than the caller's cap. */
export class ResponseTooLargeError extends GuardedFetchError {
  readonly maxBytes: number;
  constructor(reason: string, maxBytes: number) {
    super(reason);
    this.maxBytes = maxBytes;
  }
}

/** More redirect hops than the caller allows. */
export class TooManyRedirectsError extends GuardedFetchError {}

// ---------------------------------------------------------------------------------------------
// Allow-list

const HOSTNAME_LABEL = /^[a-z0-9_](?:[a-z0-9_-]{0,61}[a-z0-9_])?$/;

/** Lower-cases, strips IPv6 brackets and the root dot, so `[::1]`, `Example.COM.` compare equal. */
function normalizeHost(host: string): string {
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

interface AllowList {
  hosts: Set<string>;
  ranges: [ipaddr.IPv4 | ipaddr.IPv6, number][];
}

function compileAllowList(entries: readonly string[]): AllowList {
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

function allowsAddress(list: AllowList, addr: ipaddr.IPv4 | ipaddr.IPv6): boolean {
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

// ---------------------------------------------------------------------------------------------
// The guard

async function defaultResolve(host: string): Promise<ResolvedAddress[]> {
  return lookup(host, { all: true, verbatim: true });
}

export function createAddressGuard(options: AddressGuardOptions): AddressGuard {
  const allow = compileAllowList(options.allowHosts);
  const allowHttp = options.allowHttp;
  const resolve = options.resolve ?? defaultResolve;
  let agent: Agent | undefined;

  function checkAddress(ip: string, host?: string): AddressDecision {
    const name = host === undefined ? undefined : normalizeHost(host);
    if (name !== undefined && allow.hosts.has(name)) return { ok: true };
    let addr: ipaddr.IPv4 | ipaddr.IPv6;
    try {
      addr = ipaddr.parse(ip);
    } catch {
      return { ok: false, reason: `"${ip}" is not an IP address` };
    }
    if (allowsAddress(allow, addr)) return { ok: true };
    const why = addr.kind() === 'ipv4' ? classifyV4(addr as ipaddr.IPv4) : classifyV6(addr as ipaddr.IPv6);
    if (why === null) return { ok: true };
    const literal = name === undefined || name === normalizeHost(ip);
    return {
      ok: false,
      reason: literal ? `${ip} is ${why}` : `host "${name}" resolves to ${why} (${ip})`,
    };
  }

  async function checkHost(host: string): Promise<HostDecision> {
    const name = normalizeHost(host);
    const family = isIP(name);
    if (family !== 0) {
      const decision = checkAddress(name, name);
      return decision.ok ? { ok: true, addresses: [{ address: name, family }] } : decision;
    }
    let addresses: ResolvedAddress[];
    try {
      addresses = await resolve(name);
    } catch (err) {
      const code = (err as { code?: unknown }).code;
      return { ok: false, reason: `host "${name}" could not be resolved${typeof code === 'string' ? ` (${code})` : ''}` };
    }
    if (addresses.length === 0) return { ok: false, reason: `host "${name}" has no addresses` };
    // Every address, not just the first: the connector may fall back to any of them.
    for (const { address } of addresses) {
      const decision = checkAddress(address, name);
      if (!decision.ok) return decision;
    }
    return { ok: true, addresses };
  }

  async function checkUrl(input: string | URL): Promise<GuardDecision> {
    let url: URL;
    try {
      url = new URL(input);
    } catch {
      return { ok: false, reason: 'not a valid absolute URL' };
    }
    if (url.protocol !== 'https:' && !(allowHttp && url.protocol === 'http:')) {
      return { ok: false, reason: allowHttp ? 'only http and https URLs are allowed' : 'only https URLs are allowed' };
    }
    if (url.username !== '' || url.password !== '') {
      return { ok: false, reason: 'URLs with a username or password are not allowed' };
    }
    if (url.hostname === '') return { ok: false, reason: 'URL has no host' };
    const decision = await checkHost(url.hostname);
    return decision.ok ? { ok: true, url, addresses: decision.addresses } : decision;
  }

  const guard: AddressGuard = {
    checkUrl,
    checkHost,
    checkAddress,
    dispatcher() {
      agent ??= createGuardedAgent(guard, options.connect === undefined ? {} : { connect: options.connect });
      return agent;
    },
    async close() {
      const a = agent;
      agent = undefined;
      if (a !== undefined) await a.close();
    },
  };
  return guard;
}

// ---------------------------------------------------------------------------------------------
// Enforcement at connect time

type GuardedAgentOptions = Omit<Agent.Options, 'connect'> & {
  /** TLS and socket options for the connector (e.g. `ca`, `timeout`). */
  connect?: buildConnector.BuildOptions;
};

/**
 * An undici Agent whose connector resolves through the guard and dials the checked IP itself,
 * so the address checked is the address connected to (no DNS-rebinding window). TLS still
 * verifies and sends SNI for the original hostname, because undici derives both from `host`.
 * It never follows redirects; `guardedFetch` does, re-checking each hop.
 */
export function createGuardedAgent(guard: AddressGuard, options: GuardedAgentOptions = {}): Agent {
  const { connect: connectOptions, ...agentOptions } = options;
  const base = buildConnector({ ...connectOptions });

  const connect: buildConnector.connector = (opts, callback) => {
    const host = opts.hostname;
    guard.checkHost(host).then(
      (decision) => {
        if (!decision.ok) {
          callback(new AddressRefusedError(decision.reason), null);
          return;
        }
        dial(decision.addresses, 0, undefined);
      },
      (err: unknown) => callback(err instanceof Error ? err : new Error(String(err)), null),
    );

    // Tries the checked addresses in order (e.g. ::1 refused, then 127.0.0.1), as getaddrinfo users expect.
    function dial(addresses: ResolvedAddress[], index: number, lastError: Error | undefined): void {
      const next = addresses[index];
      if (next === undefined) {
        callback(lastError ?? new AddressRefusedError(`host "${host}" has no addresses`), null);
        return;
      }
      base({ ...opts, hostname: next.address }, (err, socket) => {
        if (err !== null) {
          dial(addresses, index + 1, err);
          return;
        }
        // Belt and braces: judge the peer the kernel actually connected to.
        const remote = (socket as Socket).remoteAddress;
        const decision = remote === undefined ? { ok: false as const, reason: 'socket has no remote address' } : guard.checkAddress(remote, host);
        if (!decision.ok) {
          (socket as Socket).destroy();
          callback(new AddressRefusedError(decision.reason), null);
          return;
        }
        callback(null, socket as Socket);
      });
    }
  };

  return new Agent({ ...agentOptions, connect });
}

// ---------------------------------------------------------------------------------------------
// Fetch with redirects re-checked and a size cap (media downloads)

interface GuardedFetchInit {
  method?: string;
  headers?: Record<string, string>;
  body?: string | Uint8Array;
  /** Largest body accepted, in bytes. Default 16 MiB, the media limit of the contract. */
  maxBytes?: number;
  /** Whole-operation deadline across every hop and the body. Default 30 s. */
  timeoutMs?: number;
  /** Redirect hops followed at most. Default 5. */
  maxRedirects?: number;
  signal?: AbortSignal;
}

interface GuardedResponse {
  status: number;
  headers: IncomingHttpHeaders;
  body: Buffer;
  /** The URL that finally answered, after redirects. */
  url: URL;
}

const DEFAULT_MAX_BYTES = 16 * 1024 * 1024;
const DEFAULT_TIMEOUT_MS = 30_000;
const DEFAULT_MAX_REDIRECTS = 5;
const REDIRECT_STATUSES = new Set([301, 302, 303, 307, 308]);
// Credentials meant for one origin must not travel to wherever it redirects.
const CROSS_ORIGIN_DROPPED = new Set(['authorization', 'cookie', 'proxy-authorization']);

/**
 * Fetches through the guard's Agent, following at most `maxRedirects` redirects and checking
 * each hop through the guard before connecting to it. Throws AddressRefusedError,
 * ResponseTooLargeError or TooManyRedirectsError; network errors and aborts pass through.
 */
export async function guardedFetch(guard: AddressGuard, url: string | URL, init: GuardedFetchInit = {}): Promise<GuardedResponse> {
  const maxBytes = init.maxBytes ?? DEFAULT_MAX_BYTES;
  const maxRedirects = init.maxRedirects ?? DEFAULT_MAX_REDIRECTS;
  const deadline = AbortSignal.timeout(init.timeoutMs ?? DEFAULT_TIMEOUT_MS);
  const signal = init.signal === undefined ? deadline : AbortSignal.any([init.signal, deadline]);
  const dispatcher = guard.dispatcher();

  let method = (init.method ?? 'GET').toUpperCase();
  let body = init.body;
  let headers: Record<string, string> = { ...init.headers };
  let current: string | URL = url;

  for (let hop = 0; ; hop++) {
    const decision = await guard.checkUrl(current);
    if (!decision.ok) throw new AddressRefusedError(hop === 0 ? decision.reason : `redirect refused: ${decision.reason}`);
    const target = decision.url;

    const res = await request(target, { method, headers, body, signal, dispatcher });
    const location = res.headers.location;
    const locationText = Array.isArray(location) ? location[0] : location;

    if (!REDIRECT_STATUSES.has(res.statusCode) || locationText === undefined) {
      return { status: res.statusCode, headers: res.headers, body: await readCapped(res.body, res.headers, maxBytes), url: target };
    }

    await res.body.dump();
    if (hop >= maxRedirects) throw new TooManyRedirectsError(`more than ${maxRedirects} redirects`);
    let next: URL;
    try {
      next = new URL(locationText, target);
    } catch {
      throw new AddressRefusedError('redirect refused: Location is not a valid URL');
    }
    // Fetch-standard method rewriting: 303 always, and 301/302 for POST, become a bodiless GET.
    if (res.statusCode === 303 ? method !== 'HEAD' : (res.statusCode === 301 || res.statusCode === 302) && method === 'POST') {
      method = 'GET';
      body = undefined;
      headers = Object.fromEntries(Object.entries(headers).filter(([k]) => !/^content-/i.test(k)));
    }
    if (next.origin !== target.origin) {
      headers = Object.fromEntries(Object.entries(headers).filter(([k]) => !CROSS_ORIGIN_DROPPED.has(k.toLowerCase())));
    }
    current = next;
  }
}

type ResponseBody = Awaited<ReturnType<typeof request>>['body'];

async function readCapped(body: ResponseBody, headers: IncomingHttpHeaders, maxBytes: number): Promise<Buffer> {
  const declared = Number(headers['content-length']);
  if (Number.isFinite(declared) && declared > maxBytes) {
    body.destroy();
    throw new ResponseTooLargeError(`response is ${declared} bytes, more than the limit of ${maxBytes}`, maxBytes);
  }
  const chunks: Buffer[] = [];
  let total = 0;
  for await (const chunk of body as AsyncIterable<Buffer>) {
    total += chunk.length;
    if (total > maxBytes) {
      // Destroying the body aborts the transfer instead of downloading the rest to discard it.
      body.destroy();
      throw new ResponseTooLargeError(`response is more than the limit of ${maxBytes} bytes`, maxBytes);
    }
    chunks.push(chunk);
  }
  return Buffer.concat(chunks, total);
}
