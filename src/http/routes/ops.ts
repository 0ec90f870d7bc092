// Operations endpoints: liveness, readiness and Prometheus metrics (no authentication).
import { Type, type FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { Metrics } from '../../metrics.js';
import { named } from '../schemas/common.js';

const tags = ['operations'];
// No token: a load balancer or Prometheus calls these (`security: []` removes the lock in /docs).
const security: [] = [];
const Health = named('Health', 'The check passed.', Type.Object({ status: Type.String() }, { examples: [{ status: 'ok' }] }));

const SinkHealthList = Type.Array(
  Type.Object({
    kind: Type.String({ description: 'rabbitmq or nats' }),
    state: Type.Union([Type.Literal('up'), Type.Literal('down')], { description: "This gateway's last publish to that kind of sink: confirmed (up) or failed (down)." }),
    lastError: Type.Union([Type.String(), Type.Null()], { description: 'Why the last publish failed (no credentials in it).' }),
  }),
  { description: 'With `?details=1`: the broker sinks this gateway has published to since it started (none yet: empty). A sink that is down does not make the gateway unready: its events are kept and retried in order.' },
);
const Readiness = named(
  'Readiness',
  'Ready. Without `details` the body is exactly `{"status":"ok"}`.',
  Type.Object({ status: Type.String(), sinks: Type.Optional(SinkHealthList) }, { examples: [{ status: 'ok' }, { status: 'ok', sinks: [{ kind: 'rabbitmq', state: 'down', lastError: 'connect ECONNREFUSED 10.0.0.5:5672' }] }] }),
);

/** A broker sink's health as /readyz?details=1 reports it (services/sinks-service.ts). */
export interface SinkHealthView {
  kind: string;
  state: 'up' | 'down';
  lastError: string | null;
}

interface OpsOptions {
  metrics: Metrics;
  ready(): Promise<{ ok: boolean; reason?: string }>;
  /** The broker sinks used since start; reported on /readyz?details=1, never a readiness condition. */
  sinkHealth?: () => SinkHealthView[];
}

export function opsRoutes({ metrics, ready, sinkHealth }: OpsOptions): FastifyPluginAsyncTypebox {
  return async (app) => {
    app.get(
      '/livez',
      {
        schema: {
          tags,
          security,
          'x-zapgate-scope': 'public',
          operationId: 'ops_livez',
          summary: 'The process is up',
          description: 'Answers 200 as long as the process serves HTTP. For a liveness probe: it checks nothing else, so a restart is not triggered by a slow database.',
          response: { 200: Health },
        },
      },
      async () => ({ status: 'ok' }),
    );
    app.get(
      '/readyz',
      {
        schema: {
          tags,
          security,
          'x-zapgate-scope': 'public',
          operationId: 'ops_readyz',
          summary: 'The database is reachable and writable, this gateway holds it, and it is not draining (503 with a reason otherwise)',
          description:
            'For a readiness probe or a load balancer. 503 `{status: "unavailable", reason}` while the disk is full (`disk full`), the database owner lock is lost, the database does not answer, or the gateway is shutting down. ' +
            '`?details=1` adds `sinks`: the health of the broker sinks (RabbitMQ, NATS) this gateway has published to. A broker outage is reported there but never makes the gateway unready: events are committed first and published in order once the broker is back (docs/contract.md §5b).',
          querystring: Type.Object({ details: Type.Optional(Type.String({ pattern: '^(1|true)$', description: '1: add the broker sinks\' health.' })) }),
          response: {
            200: Readiness,
            503: Type.Object({ status: Type.String(), reason: Type.Optional(Type.String()), sinks: Type.Optional(SinkHealthList) }, { description: 'Not ready, and why.' }),
          },
        },
      },
      async (request, reply) => {
        const r = await ready();
        const details = request.query.details !== undefined ? { sinks: sinkHealth?.() ?? [] } : {};
        return r.ok ? { status: 'ok', ...details } : reply.code(503).send({ status: 'unavailable', reason: r.reason, ...details });
      },
    );
    app.get(
      '/metrics',
      {
        schema: {
          tags,
          security,
          'x-zapgate-scope': 'public',
          operationId: 'ops_metrics',
          summary: 'Prometheus metrics',
          description:
            'Prometheus text format: HTTP requests and latency by route, messages enqueued and sent, queue depth, sessions by status, webhook deliveries and lag, received media downloads, logged failures, and the process (CPU, memory, event-loop delay). All names start with `zapgate_`; the README lists them and `docs/grafana/zapgate.json` is a dashboard over them.',
          response: {
            200: {
              description: 'Prometheus text exposition format (version 0.0.4).',
              content: { 'text/plain': { schema: { type: 'string', examples: ['# HELP zapgate_messages_enqueued_total Messages durably queued, by content type\n# TYPE zapgate_messages_enqueued_total counter\nzapgate_messages_enqueued_total{kind="text"} 12\n'] } } },
            },
          },
        },
      },
      async (_request, reply) => reply.type(metrics.registry.contentType).send(await metrics.registry.metrics()),
    );
  };
}
