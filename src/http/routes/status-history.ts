// Tag "instance", history part: the recorded status changes of an instance and why each happened.
import { Type, type TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyInstance } from 'fastify';
import type { StatusHistoryService } from '../../services/status-history.js';
import { instanceOf } from '../auth.js';
import { errorResponses, named } from '../schemas/common.js';

const Change = Type.Object({
  status: Type.String({ description: 'disconnected, pairing, connecting, connected, logged_out, banned, replaced' }),
  reason: Type.Union([Type.String(), Type.Null()], { description: 'why: created, paired, restart, connection lost, logged out from the phone, …' }),
  at: Type.Integer({ description: 'ms since the epoch' }),
});

const StatusHistory = named(
  'StatusHistory',
  'The instance\'s status changes, newest first.',
  Type.Array(Change, { examples: [[{ status: 'connected', reason: 'paired', at: 1700000000000 }, { status: 'disconnected', reason: 'created', at: 1699999990000 }]] }),
);

export function statusHistoryRoutes(history: StatusHistoryService) {
  return async (base: FastifyInstance): Promise<void> => {
    const app = base.withTypeProvider<TypeBoxTypeProvider>();
    app.get(
      '/status-history',
      {
        schema: {
          tags: ['instance'],
          'x-zapgate-scope': 'read',
          operationId: 'instance_status-history',
          summary: 'Recorded status changes with their reasons, newest first',
          description: 'Every change of the instance\'s status (pairing, connecting, connected, disconnected, logged out, banned, replaced) with the reason the gateway recorded for it, newest first; at most `limit` (default 50).',
          querystring: Type.Object({ limit: Type.Optional(Type.String({ pattern: '^([1-9][0-9]?|100)$', description: '1–100, default 50.', examples: ['50'] })) }),
          response: {
            200: StatusHistory,
            ...errorResponses(),
          },
        },
      },
      async (request) => history.list(instanceOf(request).id, Number(request.query.limit ?? 50)),
    );
  };
}
