// Tag "audit": the account's audit trail (docs/api-keys.md, "Audit trail"), newest first, paged
// with `before` (the last `seq` of the previous page).
import { Type, type FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { AuditService } from '../../services/audit-service.js';
import { accountOf } from '../auth.js';
import { errorResponses, named } from '../schemas/common.js';

const EXAMPLE = {
  seq: 42,
  at: 1767225600000,
  actor: 'key:6f1f3c9e-2b7a-4d1e-9a3c-0d4b5e6f7a8b',
  address: '203.0.113.7',
  requestId: '0b8a3f6e-5c1d-4e2f-8a9b-7c6d5e4f3a2b',
  action: 'instance_update-name',
  target: '3C01A0F4B2E94D1E8F7A6B5C4D3E2F10',
  before: { name: 'sales' },
  after: { name: 'sales-br' },
  hash: 'c5a1…',
};
const AuditEntry = named(
  'AuditEntry',
  'One change: when, who (`client-token`, `key:<id>` or `cli`), from which address and request, what (`action`: the route\'s operationId, or the CLI command), on what, and a redacted before and after.',
  Type.Object(
    {
      seq: Type.Integer(),
      at: Type.Number(),
      actor: Type.String(),
      address: Type.Union([Type.String(), Type.Null()]),
      requestId: Type.Union([Type.String(), Type.Null()]),
      action: Type.String(),
      target: Type.Union([Type.String(), Type.Null()]),
      before: Type.Unknown(),
      after: Type.Unknown(),
      hash: Type.String(),
    },
    { examples: [EXAMPLE] },
  ),
);

export function auditRoutes(audit: AuditService): FastifyPluginAsyncTypebox {
  return async (app) => {
    app.get(
      '/audit',
      {
        schema: {
          tags: ['audit'],
          'x-zapgate-scope': 'admin',
          operationId: 'audit_list',
          summary: 'The account\'s audit trail, newest first',
          description: 'Filters: `action`, `actor`, `target`, `since` / `until` (ms). Next page: `before` = the smallest `seq` of this one. Entries are kept `ZAPGATE_AUDIT_RETENTION_DAYS` days; `zapgate audit verify` checks the hash chain.',
          querystring: Type.Object({
            action: Type.Optional(Type.String({ maxLength: 100 })),
            actor: Type.Optional(Type.String({ maxLength: 100 })),
            target: Type.Optional(Type.String({ maxLength: 200 })),
            since: Type.Optional(Type.Number()),
            until: Type.Optional(Type.Number()),
            before: Type.Optional(Type.Integer({ minimum: 1 })),
            limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 500, default: 100 })),
          }),
          response: { 200: Type.Array(AuditEntry, { examples: [[EXAMPLE]] }), ...errorResponses() },
        },
      },
      async (request) => {
        const q = request.query;
        const rows = await audit.list({ ...q, accountId: accountOf(request).id, limit: q.limit ?? 100 });
        const parse = (v: string | null): unknown => (v === null ? null : JSON.parse(v));
        return rows.map((r) => ({ seq: r.seq, at: r.at, actor: r.actor, address: r.address, requestId: r.requestId, action: r.action, target: r.target, before: parse(r.before), after: parse(r.after), hash: r.hash }));
      },
    );
  };
}
