// An instance's proxy: validated (scheme, port, a host the address guard accepts) before anything
// is stored, shown only masked, and applied by restarting the instance's socket.
import type { Instance } from '../domain/instance.js';
import { errors } from '../errors.js';
import type { AddressGuard } from '../net/address-guard.js';
import { formatProxyUrl, maskStoredProxyUrl, parseProxyUrl, probeProxy, proxyInUse, type ProxySpec } from '../net/proxy.js';
import type { SessionsPort } from '../sessions/port.js';
import type { InstancesRepo } from '../store/instances-repo.js';

export interface ProxyView {
  /** The proxy URL with its credentials masked; null when none is set. */
  value: string | null;
  /** Whether the instance uses it (Z-API's `enable`; false without a URL). */
  enabled: boolean;
}

/** How long Z-API's configure-proxy waits for the proxy to accept a connection. */
const PROBE_TIMEOUT_MS = 5_000;

/** What ProxyService needs of the store (the SQL store implements it): the instance's proxy columns. */
interface ProxyStore {
  readonly instances: Pick<InstancesRepo, 'find' | 'change'>;
}

export class ProxyService {
  constructor(
    private readonly store: ProxyStore,
    private readonly guard: AddressGuard,
    private readonly sessions: Pick<SessionsPort, 'restart'>,
    /** Told after each change (the instances service drops its cached row). */
    private readonly changed: (instanceId: string) => void = () => {},
    private readonly probeTimeoutMs = PROBE_TIMEOUT_MS,
  ) {}

  async get(instanceId: string): Promise<ProxyView> {
    return viewOf(await this.instance(instanceId));
  }

  /** zapgate's update-proxy: a URL sets and enables the proxy, null clears it. */
  async set(instanceId: string, url: string | null): Promise<ProxyView> {
    const proxy = url === null ? null : await this.validate('value', url);
    return this.apply(instanceId, proxy, proxy !== null);
  }

  /**
   * Z-API's integrator/configure-proxy: an omitted or empty `proxyUrl` clears the URL, an omitted
   * or null `enable` is false; an enabled proxy must accept a connection now ("Proxy is not reachable").
   */
  async configure(instanceId: string, proxyUrl: string | null | undefined, enable: boolean | null | undefined): Promise<ProxyView> {
    const proxy = proxyUrl ? await this.validate('proxyUrl', proxyUrl) : null;
    const enabled = enable === true;
    if (proxy && enabled) {
      const unreachable = await probeProxy(proxy, this.guard, this.probeTimeoutMs);
      if (unreachable !== null) throw errors.invalidInput(`proxyUrl: Proxy is not reachable (${unreachable})`);
    }
    return this.apply(instanceId, proxy, enabled);
  }

  private async validate(field: string, url: string): Promise<ProxySpec> {
    const parsed = parseProxyUrl(url);
    if (!parsed.ok) throw errors.invalidInput(`${field}: ${parsed.reason}`);
    const decision = await this.guard.checkHost(parsed.proxy.host);
    if (!decision.ok) throw errors.invalidInput(`${field}: proxy host refused by the address guard: ${decision.reason}`);
    return parsed.proxy;
  }

  private async apply(instanceId: string, proxy: ProxySpec | null, enabled: boolean): Promise<ProxyView> {
    const before = await this.instance(instanceId);
    const url = proxy ? formatProxyUrl(proxy) : null;
    await this.store.instances.change(instanceId, { proxyUrl: url, proxyEnabled: enabled });
    this.changed(instanceId);
    // Only a change of the route actually used restarts the link (as /restart does).
    if (effective(before) !== (enabled ? url : null)) await this.sessions.restart(instanceId);
    return viewOf({ proxyUrl: url, proxyEnabled: enabled });
  }

  private async instance(instanceId: string): Promise<Instance> {
    const instance = await this.store.instances.find(instanceId);
    if (!instance) throw errors.instanceNotFound();
    return instance;
  }
}

type ProxySetting = Pick<Instance, 'proxyUrl' | 'proxyEnabled'>;

function effective(s: ProxySetting): string | null {
  return proxyInUse(s.proxyUrl, s.proxyEnabled);
}

function viewOf(s: ProxySetting): ProxyView {
  return { value: s.proxyUrl ? maskStoredProxyUrl(s.proxyUrl) : null, enabled: effective(s) !== null };
}
