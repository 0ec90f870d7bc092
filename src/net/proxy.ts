// Per-instance outbound proxies: the URL forms accepted (http CONNECT, socks5, socks5h), how they are
// shown (credentials masked), and the Agent that carries an instance's WebSocket and media traffic
// through one, with the proxy's own address checked by the address guard at every dial.
import type { ClientRequest } from 'node:http';
import type { Duplex } from 'node:stream';
import type { ConnectionOptions } from 'node:tls';
import { connect as netConnect, isIP } from 'node:net';
import { Agent as AgentBase, type AgentConnectOpts } from 'agent-base';
import { HttpsProxyAgent } from 'https-proxy-agent';
import { SocksProxyAgent } from 'socks-proxy-agent';
import { systemClock, type Clock } from '../clock.js';
import type { AddressGuard } from './address-guard.js';

/** Sockets answer in real time whatever the protocol clock does: their deadlines are guards. */
const REAL_TIME: Pick<Clock, 'setGuard' | 'withTimeout'> = systemClock();

type ProxyScheme = 'http' | 'socks5' | 'socks5h';

export interface ProxySpec {
  scheme: ProxyScheme;
  /** Hostname or IP literal, without IPv6 brackets. */
  host: string;
  port: number;
  username?: string | undefined;
  password?: string | undefined;
}

type ProxyParse = { ok: true; proxy: ProxySpec } | { ok: false; reason: string };

const MAX_URL_LENGTH = 2048;
// scheme://[user[:pass]@]host:port[/] — the port is required: a proxy has no default worth guessing.
const SHAPE = /^([a-z0-9]+):\/\/(?:([^@/?#]*)@)?(\[[0-9a-f:.]+\]|[^:/?#@[\]]+):(\d{1,5})\/?$/i;
const SCHEMES: readonly ProxyScheme[] = ['http', 'socks5', 'socks5h'];
const HOSTNAME = /^(?=.{1,253}$)[a-z0-9_](?:[a-z0-9_-]{0,61}[a-z0-9_])?(?:\.[a-z0-9_](?:[a-z0-9_-]{0,61}[a-z0-9_])?)*$/i;
const MASK = '****';

/** Parses `http|socks5|socks5h://[user[:pass]@]host:port`; the reason never repeats the credentials. */
export function parseProxyUrl(text: string): ProxyParse {
  if (text.length > MAX_URL_LENGTH) return { ok: false, reason: `longer than ${MAX_URL_LENGTH} characters` };
  const m = SHAPE.exec(text.trim());
  if (!m) {
    return {
      ok: false,
      reason: /^[a-z0-9]+:\/\/[^/?#]*$/i.test(text.trim()) && !/:\d{1,5}\/?$/.test(text.trim())
        ? 'the proxy URL needs an explicit port (scheme://host:port)'
        : 'expected http://[user:pass@]host:port, socks5://[user:pass@]host:port or socks5h://[user:pass@]host:port',
    };
  }
  const scheme = m[1]!.toLowerCase();
  if (!(SCHEMES as readonly string[]).includes(scheme)) {
    return { ok: false, reason: `scheme "${scheme}" is not supported: use http, socks5 or socks5h` };
  }
  const rawHost = m[3]!;
  const host = (rawHost.startsWith('[') ? rawHost.slice(1, -1) : rawHost).toLowerCase().replace(/\.$/, '');
  if (rawHost.startsWith('[') ? isIP(host) !== 6 : isIP(host) === 0 && !HOSTNAME.test(host)) {
    return { ok: false, reason: 'the proxy host is not a valid hostname or IP address' };
  }
  const port = Number(m[4]);
  if (port < 1 || port > 65535) return { ok: false, reason: 'the proxy port must be between 1 and 65535' };
  const proxy: ProxySpec = { scheme: scheme as ProxyScheme, host, port };
  if (m[2] !== undefined) {
    const colon = m[2].indexOf(':');
    try {
      proxy.username = decodeURIComponent(colon < 0 ? m[2] : m[2].slice(0, colon));
      if (colon >= 0) proxy.password = decodeURIComponent(m[2].slice(colon + 1));
    } catch {
      return { ok: false, reason: 'the proxy credentials are not valid percent-encoding' };
    }
    if (proxy.username === '') return { ok: false, reason: 'the proxy credentials have no user name' };
    // RFC 1929: user name and password are at most 255 bytes each.
    if (scheme !== 'http' && (Buffer.byteLength(proxy.username) > 255 || Buffer.byteLength(proxy.password ?? '') > 255)) {
      return { ok: false, reason: 'SOCKS5 credentials are at most 255 bytes each' };
    }
  }
  return { ok: true, proxy };
}

function hostPort(proxy: ProxySpec, host = proxy.host): string {
  return `${isIP(host) === 6 ? `[${host}]` : host}:${proxy.port}`;
}

/** The canonical stored form, credentials percent-encoded. */
export function formatProxyUrl(proxy: ProxySpec, host = proxy.host): string {
  const user = proxy.username === undefined ? '' : encodeURIComponent(proxy.username);
  const pass = proxy.password === undefined ? '' : `:${encodeURIComponent(proxy.password)}`;
  return `${proxy.scheme}://${user ? `${user}${pass}@` : ''}${hostPort(proxy, host)}`;
}

/** The URL as any answer or log line may show it: user name and password replaced by ****. */
export function maskProxyUrl(proxy: ProxySpec): string {
  const creds = proxy.username === undefined ? '' : proxy.password === undefined ? `${MASK}@` : `${MASK}:${MASK}@`;
  return `${proxy.scheme}://${creds}${hostPort(proxy)}`;
}

/** A stored URL masked; one that no longer parses is not shown at all. */
export function maskStoredProxyUrl(text: string): string {
  const parsed = parseProxyUrl(text);
  return parsed.ok ? maskProxyUrl(parsed.proxy) : `${MASK} (not a valid proxy URL)`;
}

/** A tunnel through the proxy failed; the message names the proxy masked, never its credentials. */
export class ProxyError extends Error {
  override name = 'ProxyError';
  /** `E…` so that the engine treats it as a lost connection (retried with backoff). */
  readonly code: string;
  constructor(message: string, code: string, options?: ErrorOptions) {
    super(message, options);
    this.code = code;
  }
}

interface ProxyAgentOptions {
  guard: AddressGuard;
  /** TLS options for the far end of the tunnel (a test network's media CA). */
  tls?: Pick<ConnectionOptions, 'ca'> | undefined;
  /** Longest a tunnel may take to open: connect to the proxy, its handshake, its connect onwards. */
  timeoutMs: number;
  /** Where that deadline is timed (default: the system clock's guards). */
  clock?: Pick<Clock, 'withTimeout'> | undefined;
}

/**
 * An http.Agent (for `ws`, `https.request`) that opens every connection as a tunnel through one
 * proxy. Before each dial the proxy host goes through the address guard and the tunnel is opened
 * to the address it checked, so a proxy is held to the same rules as a webhook URL. A socks5
 * proxy gets an address resolved here (through the request's own `lookup`, so a pinned media
 * address stays pinned); socks5h and http proxies resolve the far end themselves.
 */
export class ProxyAgent extends AgentBase {
  readonly #proxy: ProxySpec | null;
  readonly #options: ProxyAgentOptions;
  readonly #tunnels = new Map<string, HttpsProxyAgent<string> | SocksProxyAgent>();
  /** The proxy as logs and errors show it. */
  readonly display: string;

  constructor(url: string, options: ProxyAgentOptions) {
    super({ keepAlive: false });
    const parsed = parseProxyUrl(url);
    // A stored URL that no longer parses fails every dial: an instance meant to use a proxy never
    // connects without one.
    this.#proxy = parsed.ok ? parsed.proxy : null;
    this.#options = options;
    this.display = parsed.ok ? maskProxyUrl(parsed.proxy) : `${MASK} (not a valid proxy URL)`;
  }

  /** What JSON.stringify (and so a log line) shows of this agent. */
  toJSON(): { proxy: string } {
    return { proxy: this.display };
  }

  override async connect(req: ClientRequest, opts: AgentConnectOpts): Promise<Duplex> {
    const proxy = this.#proxy;
    if (!proxy) throw new ProxyError(`proxy ${this.display}: the stored proxy URL is not valid`, 'EPROXYCONFIG');
    const decision = await this.#options.guard.checkHost(proxy.host);
    if (!decision.ok) throw new ProxyError(`proxy ${this.display} refused by the address guard: ${decision.reason}`, 'EPROXYREFUSED');
    const tunnel = this.#tunnel(proxy, decision.addresses[0]!.address);
    const withTls = { ...this.#options.tls, ...dropUndefined(opts) } as AgentConnectOpts;
    let timedOut = false;
    const opening = Promise.resolve(tunnel.connect(req, withTls)) as Promise<Duplex>;
    try {
      return await (this.#options.clock ?? REAL_TIME).withTimeout(opening, this.#options.timeoutMs, () => {
        timedOut = true;
        return new ProxyError(`proxy ${this.display} did not open a tunnel within ${this.#options.timeoutMs} ms`, 'ETIMEDOUT');
      });
    } catch (err) {
      // A tunnel that opens after its deadline is nobody's: close it.
      if (timedOut) opening.then((s) => s.destroy(), () => undefined);
      if (err instanceof ProxyError) throw err;
      const e = err as Error & { code?: unknown };
      throw new ProxyError(`proxy ${this.display}: ${e.message}`, typeof e.code === 'string' && e.code.startsWith('E') ? e.code : 'EPROXY', { cause: err });
    }
  }

  /** One tunnelling agent per checked proxy address (the address is dialed, never the name). */
  #tunnel(proxy: ProxySpec, address: string): HttpsProxyAgent<string> | SocksProxyAgent {
    let tunnel = this.#tunnels.get(address);
    if (tunnel) return tunnel;
    const url = formatProxyUrl(proxy, address);
    if (proxy.scheme === 'http') tunnel = new HttpsProxyAgent(url, { keepAlive: false });
    else tunnel = new SocksProxyAgent(url, { timeout: this.#options.timeoutMs });
    if (this.#tunnels.size > 8) this.#tunnels.clear();
    this.#tunnels.set(address, tunnel);
    return tunnel;
  }
}

function dropUndefined<T extends object>(o: T): T {
  return Object.fromEntries(Object.entries(o).filter(([, v]) => v !== undefined)) as T;
}

/**
 * Whether the proxy accepts a TCP connection now (Z-API's configure-proxy answers "Proxy is not
 * reachable" otherwise): null when it does, else why not. The guard checks the host first.
 */
export async function probeProxy(proxy: ProxySpec, guard: AddressGuard, timeoutMs: number, clock: Pick<Clock, 'setGuard'> = REAL_TIME): Promise<string | null> {
  const decision = await guard.checkHost(proxy.host);
  if (!decision.ok) return decision.reason;
  const { address } = decision.addresses[0]!;
  return new Promise((resolve) => {
    const socket = netConnect({ host: address, port: proxy.port });
    const done = (reason: string | null): void => {
      cancel();
      socket.destroy();
      resolve(reason);
    };
    const cancel = clock.setGuard(timeoutMs, () => done(`no answer from ${hostPort(proxy)} within ${timeoutMs} ms`));
    socket.once('connect', () => done(null));
    socket.once('error', (err: Error & { code?: string }) => done(`${hostPort(proxy)}: ${err.code ?? err.message}`));
  });
}

/** The proxy an instance's connections go through (its URL when enabled), or null for none. */
export function proxyInUse(url: string | null, enabled: boolean): string | null {
  return enabled && url ? url : null;
}
