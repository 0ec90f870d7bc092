// Operations endpoints: liveness, readiness and Prometheus metrics (no authentication).
import { Type, type FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { Metrics } from '../../metrics.js';
import { named } from '../schemas/common.js';

const tags = ['operations'];
// No token: a load balancer or Prometheus calls these (`security: []` removes the lock in /docs).
const security: [] = [];
const Health = named('Health', 'The check passed.', Type.Object({ status: Type.String() }, { examples: [{ status: 'ok' }] }));

interface OpsOptions {
  metrics: Metrics;
  ready(): Promise<{ ok: boolean; reason?: string }>;
}

export function opsRoutes({ metrics, ready }: OpsOptions): FastifyPluginAsyncTypebox {
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
            'For a readiness probe or a load balancer. 503 `{status: "unavailable", reason}` while the disk is full (`disk full`), the database owner lock is lost, the database does not answer, or the gateway is shutting down.',
          response: {
            200: Health,
            503: Type.Object({ status: Type.String(), reason: Type.Optional(Type.String()) }, { description: 'Not ready, and why.' }),
          },
        },
      },
      async (_request, reply) => {
        const r = await ready();
        return r.ok ? { status: 'ok' } : reply.code(503).send({ status: 'unavailable', reason: r.reason });
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
