// Operations endpoints: liveness, readiness and Prometheus metrics (no authentication).
import { Type, type FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { Metrics } from '../../metrics.js';

export interface OpsOptions {
  metrics: Metrics;
  ready(): Promise<{ ok: boolean; reason?: string }>;
}

export function opsRoutes({ metrics, ready }: OpsOptions): FastifyPluginAsyncTypebox {
  return async (app) => {
    app.get('/livez', { schema: { tags: ['operations'], operationId: 'ops_livez', summary: 'The process is up', response: { 200: Type.Object({ status: Type.String() }) } } }, async () => ({ status: 'ok' }));
    app.get(
      '/readyz',
      {
        schema: {
          tags: ['operations'],
          operationId: 'ops_readyz',
          summary: 'The database is reachable and writable, this gateway holds it, and it is not draining (503 with a reason otherwise)',
          response: { 200: Type.Object({ status: Type.String() }), 503: Type.Object({ status: Type.String(), reason: Type.Optional(Type.String()) }) },
        },
      },
      async (_request, reply) => {
        const r = await ready();
        return r.ok ? { status: 'ok' } : reply.code(503).send({ status: 'unavailable', reason: r.reason });
      },
    );
    app.get('/metrics', { schema: { tags: ['operations'], operationId: 'ops_metrics', summary: 'Prometheus metrics' } }, async (_request, reply) =>
      reply.type(metrics.registry.contentType).send(await metrics.registry.metrics()),
    );
  };
}
