// Tag "audit": the account's audit trail (docs/api-keys.md, "Audit trail"), newest first, paged
// with `before` (the last `seq` of the previous page).
import { Type, type FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { AuditService } from '../../services/audit-service.js';
import { accountOf } from '../auth.js';
import { errorResponses, named } from '../schemas/common.js';

/** A number in the query string (query values are text: the schemas coerce nothing). */
const Digits = (description: string) => Type.String({ pattern: '^[0-9]{1,16}$', description });

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

const AuditPage = named('AuditPage', 'Entries newest first; the next page: `before` = the last entry\'s `seq`.', Type.Array(AuditEntry, { examples: [[EXAMPLE]] }));

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
            since: Type.Optional(Digits('ms since the epoch: entries at or after it.')),
            until: Type.Optional(Digits('ms since the epoch: entries before it.')),
            before: Type.Optional(Digits('Entries with a smaller `seq` (the next page).')),
            limit: Type.Optional(Type.String({ pattern: '^([1-9][0-9]?|[1-4][0-9]{2}|500)$', description: '1-500, default 100.' })),
          }),
          response: { 200: AuditPage, ...errorResponses() },
        },
      },
      async (request) => {
        const q = request.query;
        const num = (v: string | undefined) => (v === undefined ? undefined : Number(v));
        const rows = await audit.list({
          accountId: accountOf(request).id,
          ...(q.action !== undefined ? { action: q.action } : {}),
          ...(q.actor !== undefined ? { actor: q.actor } : {}),
          ...(q.target !== undefined ? { target: q.target } : {}),
          ...(q.since !== undefined ? { since: num(q.since) } : {}),
          ...(q.until !== undefined ? { until: num(q.until) } : {}),
          ...(q.before !== undefined ? { before: num(q.before) } : {}),
          limit: num(q.limit) ?? 100,
        });
        const parse = (v: string | null): unknown => (v === null ? null : JSON.parse(v));
        return rows.map((r) => ({ seq: r.seq, at: r.at, actor: r.actor, address: r.address, requestId: r.requestId, action: r.action, target: r.target, before: parse(r.before), after: parse(r.after), hash: r.hash }));
      },
    );
  };
}
