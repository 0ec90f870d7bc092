// Prometheus metrics: one registry per gateway (no global default), created by main and passed down.
// Every series a dashboard reads exists from the first scrape: labelled counters start at 0 for
// the label values the code uses, and gauges are read at scrape time from what they measure.
import { Counter, Gauge, Histogram, Registry, collectDefaultMetrics } from 'prom-client';

/**
 * Statuses a session can be in; each is reported, 0 when none. The list is INSTANCE_STATUSES of
 * domain/instance.ts, repeated here because metrics.ts ranks below domain/ (layering.test.ts).
 */
const SESSION_STATUSES = ['disconnected', 'pairing', 'connecting', 'connected', 'logged_out', 'banned', 'replaced'];
/** Label values each counter is given at 0, so rate() has a series before the first event. */
const SEND_RESULTS = ['sent', 'requeued', 'retry', 'failed'];
const DELIVERY_RESULTS = ['delivered', 'retrying', 'failed', 'gone'];
const FAILING_COMPONENTS = ['accounts', 'campaigns', 'groups', 'media', 'outbox', 'sender', 'sessions'];
const DOWNLOAD_RESULTS = ['stored', 'failed', 'reuploaded'];
/** The broker sinks (SINK_KINDS of domain/event-sink.ts, repeated for the same reason as the statuses). */
const SINKS = ['rabbitmq', 'nats'];
const PUBLISH_RESULTS = ['delivered', 'retrying', 'failed'];

/** What the webhook outbox still has to deliver (store/deliveries-repo.ts `backlog`). */
interface WebhookBacklog {
  pending: number;
  oldestCreatedAt: number | null;
}

/** One instance's number health (services/health-service.ts), as the per-instance gauges show it. */
export interface NumberFigures {
  instanceId: string;
  sent: number;
  delivered: number;
  read: number;
  failed: number;
  firstContacts: number;
  /** First contacts the warm-up allows per day today; 0 = no cap (or the strategy is off). */
  firstContactCap: number;
  disconnections: number;
  paused: boolean;
}

const NUMBER_OUTCOMES = ['sent', 'delivered', 'read', 'failed'] as const;

export interface Metrics {
  readonly registry: Registry;
  readonly httpRequests: Counter<'method' | 'route' | 'status'>;
  readonly httpDuration: Histogram<'method' | 'route'>;
  readonly messagesEnqueued: Counter<'kind'>;
  readonly messagesSent: Counter<'result'>;
  readonly webhookDeliveries: Counter<'result'>;
  readonly sessions: Gauge<'status'>;
  readonly loggedFailures: Counter<'component'>;
  readonly mediaDownloads: Counter<'result'>;
  readonly receiptsHeldTooLong: Counter;
  /** From an event's commit to its delivery (2xx), in seconds. */
  readonly webhookLag: Histogram;
  /** The engine tells how many live sessions are in each status; read at each scrape. */
  countSessionsWith(count: () => ReadonlyMap<string, number>): void;
  /** Messages still to send (queued or in flight), across instances; read at each scrape. */
  measureQueueWith(count: () => Promise<number>): void;
  /** Webhook deliveries still to attempt and the oldest one's commit time; read at each scrape. */
  measureWebhooksWith(read: () => Promise<WebhookBacklog>, now: () => number): void;
  /** Broker sink publishes, by sink and result (docs/contract.md §5b). */
  readonly sinkPublishes: Counter<'sink' | 'result'>;
  /** From an event's commit to the broker's confirm, in seconds. */
  readonly sinkLag: Histogram<'sink'>;
  /** Each sink's state (1 up: the last publish was confirmed) and its deliveries still to publish; read at each scrape. */
  measureSinksWith(up: () => ReadonlyMap<string, boolean>, pending: () => Promise<ReadonlyMap<string, number>>): void;
  /** Each instance's number health (docs/contract.md §12); read at each scrape. */
  measureNumbersWith(read: () => Promise<readonly NumberFigures[]>): void;
}

export function createMetrics(collectProcessMetrics = true): Metrics {
  const registry = new Registry();
  if (collectProcessMetrics) collectDefaultMetrics({ register: registry, prefix: 'zapgate_' });
  const registers = [registry];
  let countSessions: (() => ReadonlyMap<string, number>) | null = null;
  let countQueue: (() => Promise<number>) | null = null;
  let readBacklog: (() => Promise<WebhookBacklog>) | null = null;
  // The gateway's clock, given with the backlog's reader (measureWebhooksWith): unread until then.
  let clockNow: () => number = () => 0;
  let sinksUp: (() => ReadonlyMap<string, boolean>) | null = null;
  let sinksPending: (() => Promise<ReadonlyMap<string, number>>) | null = null;
  let readNumbers: (() => Promise<readonly NumberFigures[]>) | null = null;
  // One read serves every number gauge of a scrape.
  let numbersRead: Promise<readonly NumberFigures[]> | null = null;
  const numbers = (): Promise<readonly NumberFigures[]> => {
    if (!readNumbers) return Promise.resolve([]);
    numbersRead ??= readNumbers().finally(() => setImmediate(() => (numbersRead = null)));
    return numbersRead;
  };
  // One backlog read serves both webhook gauges of a scrape.
  let backlog: Promise<WebhookBacklog> | null = null;
  const webhookBacklog = (): Promise<WebhookBacklog> => {
    if (!readBacklog) return Promise.resolve({ pending: 0, oldestCreatedAt: null });
    backlog ??= readBacklog().finally(() => setImmediate(() => (backlog = null)));
    return backlog;
  };
  const metrics: Metrics = {
    countSessionsWith(count) {
      countSessions = count;
    },
    measureQueueWith(count) {
      countQueue = count;
    },
    measureWebhooksWith(read, now) {
      readBacklog = read;
      clockNow = now;
    },
    measureSinksWith(up, pending) {
      sinksUp = up;
      sinksPending = pending;
    },
    measureNumbersWith(read) {
      readNumbers = read;
    },
    sinkPublishes: new Counter({
      name: 'zapgate_sink_publishes_total',
      help: 'Broker sink publish attempts, by sink (rabbitmq, nats) and result',
      labelNames: ['sink', 'result'],
      registers,
    }),
    sinkLag: new Histogram({
      name: 'zapgate_sink_publish_lag_seconds',
      help: 'Time from an event being committed to the outbox to its confirmed publish on a broker (includes retries)',
      labelNames: ['sink'],
      buckets: [0.01, 0.05, 0.1, 0.5, 1, 5, 30, 300, 1800, 7200, 36000],
      registers,
    }),
    registry,
    httpRequests: new Counter({
      name: 'zapgate_http_requests_total',
      help: 'HTTP requests by route and status',
      labelNames: ['method', 'route', 'status'],
      registers,
    }),
    httpDuration: new Histogram({
      name: 'zapgate_http_request_duration_seconds',
      help: 'HTTP request duration',
      labelNames: ['method', 'route'],
      buckets: [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 1, 5],
      registers,
    }),
    messagesEnqueued: new Counter({
      name: 'zapgate_messages_enqueued_total',
      help: 'Messages durably queued, by content type',
      labelNames: ['kind'],
      registers,
    }),
    messagesSent: new Counter({
      name: 'zapgate_messages_sent_total',
      help: 'Messages handed to the network, by result',
      labelNames: ['result'],
      registers,
    }),
    webhookDeliveries: new Counter({
      name: 'zapgate_webhook_deliveries_total',
      help: 'Webhook delivery attempts, by result',
      labelNames: ['result'],
      registers,
    }),
    sessions: new Gauge({
      name: 'zapgate_sessions',
      help: 'Live sessions (instances with a socket or a pairing) by connection status',
      labelNames: ['status'],
      registers,
      collect() {
        this.reset();
        for (const status of SESSION_STATUSES) this.set({ status }, 0);
        if (!countSessions) return;
        for (const [status, n] of countSessions()) this.set({ status }, n);
      },
    }),
    loggedFailures: new Counter({
      name: 'zapgate_failures_total',
      help: 'Failures that were logged and not rethrown, by component',
      labelNames: ['component'],
      registers,
    }),
    mediaDownloads: new Counter({
      name: 'zapgate_media_downloads_total',
      help: 'Downloads of received media from the network, by result (stored, failed, reuploaded)',
      labelNames: ['result'],
      registers,
    }),
    receiptsHeldTooLong: new Counter({
      name: 'zapgate_receipts_released_unrecorded_total',
      help: 'Delivery receipts let go to the network before their event was committed (the commit took longer than the hold limit)',
      registers,
    }),
    webhookLag: new Histogram({
      name: 'zapgate_webhook_delivery_lag_seconds',
      help: 'Time from an event being committed to the outbox to its successful delivery (includes retries)',
      buckets: [0.01, 0.05, 0.1, 0.5, 1, 5, 30, 300, 1800, 7200, 36000],
      registers,
    }),
  };
  new Gauge({
    name: 'zapgate_queue_depth',
    help: 'Messages waiting to be sent (queued or in flight), across every instance',
    registers,
    async collect() {
      this.set(countQueue ? await countQueue() : 0);
    },
  });
  new Gauge({
    name: 'zapgate_webhook_pending',
    help: 'Webhook deliveries still to attempt (pending or retrying)',
    registers,
    async collect() {
      this.set((await webhookBacklog()).pending);
    },
  });
  new Gauge({
    name: 'zapgate_webhook_oldest_pending_seconds',
    help: 'Age of the oldest webhook delivery still to attempt (0 when none): how far deliveries lag behind',
    registers,
    async collect() {
      const { oldestCreatedAt } = await webhookBacklog();
      this.set(oldestCreatedAt === null ? 0 : Math.max(0, (clockNow() - oldestCreatedAt) / 1000));
    },
  });
  new Gauge({
    name: 'zapgate_sink_up',
    help: 'Whether the last publish to each broker sink was confirmed (1) or not, or none was tried yet (0)',
    labelNames: ['sink'],
    registers,
    collect() {
      const up = sinksUp?.();
      for (const sink of SINKS) this.set({ sink }, up?.get(sink) === true ? 1 : 0);
    },
  });
  new Gauge({
    name: 'zapgate_sink_pending',
    help: 'Broker sink deliveries still to publish (pending or retrying), by sink',
    labelNames: ['sink'],
    registers,
    async collect() {
      const pending = sinksPending ? await sinksPending() : new Map<string, number>();
      for (const sink of SINKS) this.set({ sink }, pending.get(sink) ?? 0);
    },
  });
  // Labelled `instance_id`: Prometheus's own `instance` label names the scrape target (the gateway).
  const perNumber = (name: string, help: string, value: (n: NumberFigures) => number): void => {
    new Gauge({
      name,
      help,
      labelNames: ['instance_id'],
      registers,
      async collect() {
        this.reset();
        for (const n of await numbers()) this.set({ instance_id: n.instanceId }, value(n));
      },
    });
  };
  new Gauge({
    name: 'zapgate_number_messages',
    help: 'Per instance, messages accepted in the last (rolling) day by how far they got: sent, delivered (read included), read, failed (docs/contract.md §12)',
    labelNames: ['instance_id', 'outcome'],
    registers,
    async collect() {
      this.reset();
      for (const n of await numbers()) for (const outcome of NUMBER_OUTCOMES) this.set({ instance_id: n.instanceId, outcome }, n[outcome]);
    },
  });
  perNumber('zapgate_number_first_contacts', 'Per instance, first messages to strangers in the last (rolling) day', (n) => n.firstContacts);
  perNumber('zapgate_number_first_contact_cap', 'Per instance, first contacts the warm-up allows per day today (0: no cap, or the anti-ban strategy is off)', (n) => n.firstContactCap);
  perNumber('zapgate_number_disconnections', 'Per instance, times the number lost its connection in the last (rolling) day', (n) => n.disconnections);
  perNumber('zapgate_number_paused', 'Per instance, 1 while the anti-ban governor has paused sending (a restriction signal or a failure ratio over the threshold)', (n) => (n.paused ? 1 : 0));
  for (const sink of SINKS) {
    for (const result of PUBLISH_RESULTS) metrics.sinkPublishes.inc({ sink, result }, 0);
    metrics.sinkLag.zero({ sink });
  }
  for (const result of SEND_RESULTS) metrics.messagesSent.inc({ result }, 0);
  for (const result of DELIVERY_RESULTS) metrics.webhookDeliveries.inc({ result }, 0);
  for (const component of FAILING_COMPONENTS) metrics.loggedFailures.inc({ component }, 0);
  for (const result of DOWNLOAD_RESULTS) metrics.mediaDownloads.inc({ result }, 0);
  return metrics;
}
