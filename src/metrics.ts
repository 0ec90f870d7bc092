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
}

export function createMetrics(collectProcessMetrics = true): Metrics {
  const registry = new Registry();
  if (collectProcessMetrics) collectDefaultMetrics({ register: registry, prefix: 'zapgate_' });
  const registers = [registry];
  return {
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
      help: 'Instances by connection status',
      labelNames: ['status'],
      registers,
    }),
    loggedFailures: new Counter({
      name: 'zapgate_failures_total',
      help: 'Failures that were logged and not rethrown, by component',
      labelNames: ['component'],
      registers,
    }),
  };
}
