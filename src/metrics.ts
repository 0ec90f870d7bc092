// Prometheus metrics: one registry per gateway (no global default), created by main and passed down.
import { Counter, Gauge, Histogram, Registry, collectDefaultMetrics } from 'prom-client';

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
  /** The engine tells how many live sessions are in each status; read at each scrape. */
  countSessionsWith(count: () => ReadonlyMap<string, number>): void;
}

export function createMetrics(collectProcessMetrics = true): Metrics {
  const registry = new Registry();
  if (collectProcessMetrics) collectDefaultMetrics({ register: registry, prefix: 'zapgate_' });
  const registers = [registry];
  let countSessions: (() => ReadonlyMap<string, number>) | null = null;
  return {
    countSessionsWith(count) {
      countSessions = count;
    },
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
        if (!countSessions) return;
        this.reset();
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
  };
}
