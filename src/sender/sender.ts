// The sender: one lane per instance with messages to send, fed by enqueue notifications and the
// engine's connection and restriction signals; started and stopped by main.
import type { Clock } from '../clock.js';
import type { AntibanSettings } from '../config.js';
import type { EventSink } from '../events/types.js';
import type { Logger } from '../logger.js';
import type { Metrics } from '../metrics.js';
import type { MessageTransport, RestrictionSignal } from '../sessions/port.js';
import { Semaphore } from '../convert/semaphore.js';
import { InstanceLane, type ResolvedSenderOptions, type SenderStore } from './lane.js';
import type { Random } from './pacing.js';

export interface SenderOptions {
  /** false only for benchmarks (ZAPGATE_PACING=off): every gap and typing pause is skipped. */
  pacing: boolean;
  antiban: AntibanSettings;
  /** Source of the jitter (tests may fix it); Math.random by default. */
  random?: Random;
  maxAttempts?: number;
  retryMs?: number;
  /** Ms stop() waits for sends already handed to the engine: a guard on the network, never scaled. */
  stopTimeoutMs?: number;
  /** Large payloads (data URIs) being sent at once, across every lane. Default 4. */
  largePayloadSlots?: number;
}

interface SenderDeps {
  store: SenderStore;
  transport: MessageTransport;
  events: EventSink;
  clock: Clock;
  log: Logger;
  metrics?: Metrics;
  options: SenderOptions;
  /** A message that referenced stored media was sent or failed (the sweep may remove its files). */
  mediaReleased?: () => void;
  /** Cluster mode: whether this node runs the instance (others' lanes run on their owners). */
  owns?: (instanceId: string) => boolean;
}

export class Sender {
  private readonly lanes = new Map<string, InstanceLane>();
  /** Each lane's own stop, for a handover of its instance to another node. */
  private readonly laneStops = new Map<string, AbortController>();
  private readonly stopping = new AbortController();
  private readonly options: ResolvedSenderOptions;
  private readonly largePayloads: Semaphore;
  private started = false;

  constructor(private readonly deps: SenderDeps) {
    this.options = {
      pacing: deps.options.pacing,
      antiban: deps.options.antiban,
      random: deps.options.random ?? Math.random,
      maxAttempts: deps.options.maxAttempts ?? 5,
      retryMs: deps.options.retryMs ?? 2_000,
    };
    this.largePayloads = new Semaphore(Math.max(1, deps.options.largePayloadSlots ?? 4));
    deps.transport.onConnectionChange((instanceId) => {
      if (this.active && this.mine(instanceId)) this.lane(instanceId).connectionChanged();
    });
    deps.transport.onRestriction((signal) => this.restricted(signal));
  }

  private get active(): boolean {
    return this.started && !this.stopping.signal.aborted;
  }

  /** Starts a lane for every instance with messages waiting, including those left in flight by a crash. */
  async start(): Promise<void> {
    if (this.started) return;
    this.started = true;
    for (const instanceId of await this.deps.store.messages.instancesWithWaiting()) if (this.mine(instanceId)) this.lane(instanceId).notify();
  }

  /** Called after an enqueue commits (MessagesService names the sender as its queue). */
  notify(instanceId: string): void {
    if (this.active && this.mine(instanceId)) this.lane(instanceId).notify();
  }

  /** Cluster mode: this node now runs the instance; its waiting messages (in flight ones too) go out from here. */
  acquire(instanceId: string): void {
    this.notify(instanceId);
  }

  /**
   * Cluster mode: the instance goes to another node. Its lane stops; a send already handed to the
   * engine finishes first (up to stopTimeoutMs); what is still in flight then is resent, with the
   * same id, by the next owner.
   */
  async release(instanceId: string): Promise<void> {
    const lane = this.lanes.get(instanceId);
    if (!lane) return;
    this.laneStops.get(instanceId)?.abort();
    await this.withinStopTimeout(lane.stop());
    this.lanes.delete(instanceId);
    this.laneStops.delete(instanceId);
    await this.deps.store.messages.drain();
    await this.deps.store.antiban.drain();
  }

  private mine(instanceId: string): boolean {
    return this.deps.owns?.(instanceId) ?? true;
  }

  /** Waits for `work` at most stopTimeoutMs; what is still in flight then is resent at the next start. */
  private async withinStopTimeout(work: Promise<unknown>): Promise<void> {
    const gaveUp = new Error('stop timeout');
    await this.deps.clock.withTimeout(work, this.deps.options.stopTimeoutMs ?? 5_000, () => gaveUp).catch((err: unknown) => {
      if (err !== gaveUp) throw err;
    });
  }

  /**
   * Applies the anti-ban setting to the instance's lane at once (the caller has already stored it,
   * so a lane started later reads it too). True when the instance's session is running now, i.e.
   * the very next message it sends follows the new setting: `workerSynced` of update-antiban.
   */
  applyAntiban(instanceId: string, enabled: boolean): boolean {
    this.lanes.get(instanceId)?.applyAntiban(enabled);
    return this.active && this.deps.transport.isConnected(instanceId);
  }

  /** Resolves when every lane has nothing it can do now (tests and benchmarks). */
  async idle(): Promise<void> {
    await Promise.all([...this.lanes.values()].map((l) => l.idle()));
  }

  /**
   * Stops every lane. A send already handed to the engine gets up to stopTimeoutMs to finish;
   * whatever is still in flight then is sent again, with the same id, at the next start.
   */
  async stop(): Promise<void> {
    this.stopping.abort();
    await this.withinStopTimeout(Promise.all([...this.lanes.values()].map((l) => l.stop())));
    await this.deps.store.messages.drain();
    await this.deps.store.antiban.drain();
  }

  private restricted(signal: RestrictionSignal): void {
    if (!this.active || !this.mine(signal.instanceId)) return;
    this.lane(signal.instanceId)
      .onRestriction(signal)
      .catch((err: unknown) => {
        this.deps.log.error({ err, instanceId: signal.instanceId }, 'anti-ban: could not record a restriction');
        this.deps.metrics?.loggedFailures.inc({ component: 'sender' });
      });
  }

  private lane(instanceId: string): InstanceLane {
    let lane = this.lanes.get(instanceId);
    if (!lane) {
      const own = new AbortController();
      this.laneStops.set(instanceId, own);
      lane = new InstanceLane(
        instanceId,
        {
          store: this.deps.store,
          transport: this.deps.transport,
          events: this.deps.events,
          clock: this.deps.clock,
          log: this.deps.log,
          metrics: this.deps.metrics,
          options: this.options,
          largePayloads: this.largePayloads,
          mediaReleased: this.deps.mediaReleased,
        },
        AbortSignal.any([this.stopping.signal, own.signal]),
      );
      this.lanes.set(instanceId, lane);
    }
    return lane;
  }
}
