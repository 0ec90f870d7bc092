// The outbox: the event sink, the webhook dispatcher, the replay API and retention, wired together.
import { rootCertificates } from 'node:tls';
import type { Clock } from '../clock.js';
import type { EventSinkWithCopies } from '../store/message-copies.js';
import type { Logger } from '../logger.js';
import type { Metrics } from '../metrics.js';
import { createGuardedAgent, type AddressGuard } from '../net/address-guard.js';
import type { Store } from '../store/index.js';
import type { WebhooksRepo } from '../store/webhooks-repo.js';
import { DeliveryDispatcher, type DispatcherSettings } from './dispatcher.js';
import { WebhookDeliveriesService } from './replay.js';
import { DEFAULT_RETENTION, RetentionSweeper, type RetentionSettings } from './retention.js';
import { OutboxSink, type LiveStream } from './sink.js';
import { BrokerSinks, type SinkDefaults } from './sinks/index.js';
import type { SinksRepo } from '../store/sinks-repo.js';

export interface OutboxTuning extends DispatcherSettings, RetentionSettings {
  /** Extra CA certificates (PEM) trusted for webhook TLS on top of Node's bundled roots (test receivers). */
  ca: string | Buffer | readonly (string | Buffer)[] | undefined;
  /** Idle keep-alive connections to receivers are closed after this many real ms. */
  keepAliveMs: number;
}

const DEFAULT_OUTBOX_TUNING: Omit<OutboxTuning, 'allowHttp'> = {
  ...DEFAULT_RETENTION,
  ca: undefined,
  concurrency: 64,
  timeoutMs: 15_000,
  laneBuffer: 1_000,
  maxBuffered: 50_000,
  refillBatch: 500,
  keepAliveMs: 30_000,
};

/** What the outbox needs of the store (the SQL store implements it). */
export interface OutboxStore extends Pick<Store, 'deliveries' | 'streamEvents'> {
  /** A URL that keeps failing is disabled. */
  readonly webhooks: Pick<WebhooksRepo, 'list' | 'disable'>;
  /** Broker sinks' settings per instance and account. */
  readonly sinks: Pick<SinksRepo, 'forInstances'>;
}

export interface OutboxDeps {
  store: OutboxStore;
  clock: Clock;
  log: Logger;
  metrics: Metrics;
  /** Its policy (ranges, allow-list, DNS) is applied on every connection the dispatcher opens. */
  guard: AddressGuard;
  allowHttp: boolean;
  tuning?: Partial<Omit<OutboxTuning, 'allowHttp'>>;
  /** The live event stream, told which instances had events committed so its readers wake. */
  stream?: LiveStream;
  /** The broker sinks every instance publishes to unless it or its account sets otherwise (ZAPGATE_SINK_*). */
  sinkDefaults?: SinkDefaults;
  /**
   * Cluster mode: the store of this node's engine (its writes are fenced, migration 018), through
   * which events are committed and outcomes recorded; and which instances this node delivers for.
   */
  cluster?: { store: Pick<Store, 'deliveries'>; owns(instanceId: string): boolean };
}

export interface Outbox {
  /** Where the engine and the sender hand events. */
  readonly sink: EventSinkWithCopies;
  readonly deliveries: WebhookDeliveriesService;
  /** The broker sinks: their health, and `forget` after their settings change. */
  readonly brokers: BrokerSinks;
  /** Starts delivering, resuming whatever the store still holds. */
  start(): Promise<void>;
  /** Commits pending emits, stops the dispatcher (attempts in flight are retried next start). */
  close(): Promise<void>;
  /** Cluster mode: start or stop delivering an instance's events on this node; look for missed lanes. */
  acquire(instanceId: string): Promise<void>;
  release(instanceId: string): Promise<void>;
  rescan(): Promise<void>;
}

export function createOutbox(deps: OutboxDeps): Outbox {
  const tuning: OutboxTuning = { ...DEFAULT_OUTBOX_TUNING, ...deps.tuning, allowHttp: deps.allowHttp };
  const extraCa = tuning.ca === undefined ? [] : Array.isArray(tuning.ca) ? tuning.ca : [tuning.ca];
  const agent = createGuardedAgent(deps.guard, {
    connect: {
      timeout: tuning.timeoutMs,
      ...(extraCa.length > 0 ? { ca: [...rootCertificates, ...extraCa] } : {}),
    },
    // A lane sends one request at a time, so each in-flight attempt needs its own connection.
    connections: tuning.concurrency,
    keepAliveTimeout: tuning.keepAliveMs,
    keepAliveMaxTimeout: tuning.keepAliveMs,
  });
  const log = deps.log;

  const engineStore = deps.cluster?.store ?? deps.store;
  const brokers = new BrokerSinks({ store: deps.store.sinks, guard: deps.guard, defaults: deps.sinkDefaults ?? {}, log, clock: deps.clock, timeoutMs: tuning.timeoutMs });
  const dispatcher = new DeliveryDispatcher({
    sinks: brokers,
    store: engineStore.deliveries,
    ...(deps.cluster ? { owns: deps.cluster.owns } : {}),
    clock: deps.clock,
    log,
    metrics: deps.metrics,
    agent,
    settings: tuning,
    async disableUrl(instanceId, url, reason) {
      const targets = await deps.store.webhooks.list(instanceId);
      for (const t of targets) {
        if (t.url === url && t.disabledReason === null) await deps.store.webhooks.disable(instanceId, t.kind, reason);
      }
    },
  });
  const keepAll = (tuning.streamKeepMs ?? 0) > 0;
  const stream = deps.stream ?? null;
  const sink = new OutboxSink(
    engineStore.deliveries,
    deps.clock,
    (jobs) => dispatcher.offer(jobs),
    keepAll || stream ? { keepAll, readers: stream } : null,
    (ids) => brokers.enabled(ids),
  );
  const deliveries = new WebhookDeliveriesService(deps.store.deliveries, deps.clock, (instanceId, url) => dispatcher.wake(instanceId, url));
  const retention = new RetentionSweeper(deps.store.deliveries, deps.clock, log, deps.metrics, tuning, deps.store.streamEvents);

  return {
    sink,
    deliveries,
    brokers,
    async start() {
      await dispatcher.start();
      retention.start();
    },
    async close() {
      await sink.close();
      await dispatcher.stop();
      await brokers.close();
      await retention.stop();
      await agent.close();
    },
    acquire: (instanceId) => dispatcher.acquire(instanceId),
    async release(instanceId) {
      await sink.drain();
      await dispatcher.release(instanceId);
    },
    rescan: () => dispatcher.rescan(),
  };
}
