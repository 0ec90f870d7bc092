// The broker sinks (docs/contract.md §5b): which sinks each instance publishes to (its own setting,
// else its account's, else the environment's), one connection per broker URL opened on demand, and
// one publish attempt as the dispatcher makes it. The dispatcher keeps the guarantees (the store is
// the queue, one attempt at a time per instance and sink, retries, `failed`, replay).
import type { Clock } from '../../clock.js';
import { resolveSink, SINK_KINDS, type SinkKind, type SinkScope, type SinkSettings } from '../../domain/event-sink.js';
import type { Logger } from '../../logger.js';
import type { AddressGuard } from '../../net/address-guard.js';
import type { DueDelivery } from '../../store/deliveries-repo.js';
import type { SinksRepo } from '../../store/sinks-repo.js';
import { signWebhook } from '../signing.js';
import { BrokerError, brokerReason, type BrokerPublisher } from './broker.js';
import { openNatsPublisher } from './nats.js';
import { openRabbitPublisher } from './rabbitmq.js';

/** The sinks every instance publishes to unless it or its account sets otherwise (ZAPGATE_SINK_*). */
export type SinkDefaults = Partial<Record<SinkKind, SinkSettings>>;

export type SinkAttemptResult =
  | { outcome: 'delivered' }
  /** `final`: the sink is no longer set for the instance; retrying cannot help. */
  | { outcome: 'failed'; error: string; final: boolean }
  | { outcome: 'aborted' };

type Resolved = { settings: SinkSettings; scope: SinkScope } | null;

export interface SinkHealth {
  /** `unused`: no publish tried since start; `up`: the last publish was confirmed; `down`: it failed. */
  state: 'unused' | 'up' | 'down';
  lastError: string | null;
  /** When the last confirmed publish was (ms on the clock). */
  lastPublishedAt: number | null;
}

interface BrokerSinksDeps {
  store: Pick<SinksRepo, 'forInstances'>;
  guard: AddressGuard;
  defaults: SinkDefaults;
  log: Logger;
  clock: Clock;
  /** Ms a connection or a publish may take: a guard on the broker, never scaled. */
  timeoutMs: number;
  /** Ms a resolved setting is trusted (other nodes' updates are seen after it). */
  cacheMs?: number;
}

export class BrokerSinks {
  private readonly cache = new Map<string, { at: number; sinks: Map<SinkKind, Resolved> }>();
  private readonly connections = new Map<string, Promise<BrokerPublisher>>();
  private readonly healthOf = new Map<SinkKind, SinkHealth>();
  private closed = false;

  constructor(private readonly deps: BrokerSinksDeps) {
    for (const kind of SINK_KINDS) this.healthOf.set(kind, { state: 'unused', lastError: null, lastPublishedAt: null });
  }

  /** The sinks each instance publishes to now (instances with none are absent). */
  async enabled(instanceIds: readonly string[]): Promise<Map<string, SinkKind[]>> {
    const all = await this.resolveMany(instanceIds);
    const out = new Map<string, SinkKind[]>();
    for (const [id, sinks] of all) {
      const kinds = SINK_KINDS.filter((k) => sinks.get(k) != null);
      if (kinds.length > 0) out.set(id, kinds);
    }
    return out;
  }

  async resolve(instanceId: string, kind: SinkKind): Promise<Resolved> {
    return (await this.resolveMany([instanceId])).get(instanceId)?.get(kind) ?? null;
  }

  /** Settings changed (one instance, or an account's: all): read them again. */
  forget(instanceId?: string): void {
    if (instanceId === undefined) this.cache.clear();
    else this.cache.delete(instanceId);
  }

  health(): ReadonlyMap<SinkKind, SinkHealth> {
    return this.healthOf;
  }

  /** One publish of a delivery to the instance's sink of this kind, as it is set now. */
  async attempt(kind: SinkKind, job: DueDelivery, now: number, signal: AbortSignal): Promise<SinkAttemptResult> {
    const resolved = await this.resolve(job.instanceId, kind).catch(() => undefined);
    if (resolved === undefined) return { outcome: 'failed', error: 'reading the sink settings failed', final: false };
    if (resolved === null) return { outcome: 'failed', error: `no ${kind} sink is set for the instance any more`, final: true };
    const { settings } = resolved;
    const message = {
      id: job.eventId,
      subject: `${settings.prefix}.${job.instanceId}.${job.type}`,
      body: job.body,
      type: job.type,
      now,
      headers: { ...signWebhook({ id: job.eventId, timestamp: Math.floor(now / 1000), body: job.body, secrets: job.secrets }) },
    };
    const health = this.healthOf.get(kind);
    try {
      const publisher = await this.connection(kind, settings);
      if (signal.aborted) return { outcome: 'aborted' };
      await publisher.publish(message, this.deps.timeoutMs);
      if (health) Object.assign(health, { state: 'up', lastError: null, lastPublishedAt: this.deps.clock.now() });
      return { outcome: 'delivered' };
    } catch (err) {
      if (signal.aborted) return { outcome: 'aborted' };
      const error = brokerReason(err);
      if (health) Object.assign(health, { state: 'down', lastError: error });
      return { outcome: 'failed', error, final: false };
    }
  }

  async close(): Promise<void> {
    this.closed = true;
    const open = [...this.connections.values()];
    this.connections.clear();
    await Promise.all(open.map((p) => p.then((c) => c.close(), () => undefined)));
  }

  /** The open connection for these settings, or a new one (a dead one is replaced). */
  private async connection(kind: SinkKind, settings: SinkSettings): Promise<BrokerPublisher> {
    if (this.closed) throw new BrokerError('the gateway is stopping');
    const key = `${kind}\u0000${settings.url}\u0000${kind === 'rabbitmq' ? settings.exchange : ''}`;
    const existing = this.connections.get(key);
    if (existing !== undefined) {
      const ready = await existing.catch(() => null);
      if (ready !== null && !ready.dead) return ready;
      if (this.connections.get(key) === existing) this.connections.delete(key);
    }
    let opening = this.connections.get(key);
    if (opening === undefined) {
      const { guard, clock, timeoutMs } = this.deps;
      const access = { guard, clock, timeoutMs };
      opening = kind === 'rabbitmq' ? openRabbitPublisher(settings.url, settings.exchange, access) : openNatsPublisher(settings.url, access);
      this.connections.set(key, opening);
      // A failed opening is forgotten, so the next attempt tries again.
      opening.catch(() => {
        if (this.connections.get(key) === opening) this.connections.delete(key);
      });
    }
    return opening;
  }

  private async resolveMany(instanceIds: readonly string[]): Promise<Map<string, Map<SinkKind, Resolved>>> {
    const now = this.deps.clock.now();
    const ttl = this.deps.cacheMs ?? 5_000;
    const out = new Map<string, Map<SinkKind, Resolved>>();
    const missing: string[] = [];
    for (const id of new Set(instanceIds)) {
      const hit = this.cache.get(id);
      if (hit !== undefined && now - hit.at < ttl) out.set(id, hit.sinks);
      else missing.push(id);
    }
    if (missing.length === 0) return out;
    const rows = await this.deps.store.forInstances(missing);
    for (const id of missing) {
      const scoped = rows.get(id);
      const sinks = new Map<SinkKind, Resolved>();
      for (const kind of SINK_KINDS) {
        sinks.set(kind, resolveSink([['instance', scoped?.instance.get(kind)], ['account', scoped?.account.get(kind)], ['environment', this.deps.defaults[kind]]]));
      }
      this.cache.set(id, { at: now, sinks });
      out.set(id, sinks);
    }
    return out;
  }
}
