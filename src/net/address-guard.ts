// SSRF guard: decides which webhook and media URLs the gateway may reach, and enforces it on the socket.
// Which addresses are refused is the policy in `address-policy.ts`; this file resolves hosts, applies
// that policy to URLs and to the socket actually connected, and `guarded-fetch.ts` follows redirects.
import { lookup } from 'node:dns/promises';
import { isIP, type Socket } from 'node:net';
import ipaddr from 'ipaddr.js';
import { Agent, buildConnector } from 'undici';
import { allowsAddress, classifyAddress, compileAllowList, normalizeHost, type IpAddress } from './address-policy.js';

export { parseAllowList } from './address-policy.js';

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
    let addr: IpAddress;
    try {
      addr = ipaddr.parse(ip);
    } catch {
      return { ok: false, reason: `"${ip}" is not an IP address` };
    }
    if (allowsAddress(allow, addr)) return { ok: true };
    const why = classifyAddress(addr);
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
