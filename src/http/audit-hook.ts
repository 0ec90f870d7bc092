// Records every change a request made in the audit trail (services/audit-service.ts): a successful
// request to a route whose declared scope is `manage` or `admin` (src/http/scopes.ts), other than a
// read, plus the few Z-API routes that change state on a GET. Written before the answer is sent, so
// a client that got its 2xx finds the entry.
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { Logger } from '../logger.js';
import type { AuditService } from '../services/audit-service.js';
import { routeScope } from './scopes.js';

/** Z-API routes that change state although they are GETs. */
const CHANGING_GETS = new Set(['instance_restart', 'instance_disconnect', 'groups_accept-invite-group']);

/** What an instance looked like before the change (secrets are redacted by the audit service). */
function instanceBefore(request: FastifyRequest): Record<string, unknown> | null {
  const i = request.instance;
  if (!i) return null;
  const { status: _status, statusReason: _reason, statusSince: _since, tokenHash: _hash, webhookSecret: _secret, webhookSecretPrevious: _previous, ...settings } = i;
  return settings;
}

function createdId(payload: unknown): string | null {
  if (typeof payload !== 'string' || !payload.startsWith('{')) return null;
  try {
    const body = JSON.parse(payload) as { instanceId?: unknown; id?: unknown; created?: { id?: unknown } };
    const id = body.instanceId ?? body.created?.id ?? body.id;
    return typeof id === 'string' ? id : null;
  } catch {
    return null;
  }
}

/** `nodeId`: cluster mode, where a request forwarded to the instance's owner is recorded there, not here. */
export function auditHook(audit: AuditService, log: Logger, nodeId: string | null) {
  return async function recordChange(request: FastifyRequest, reply: FastifyReply, payload: unknown): Promise<unknown> {
    if (reply.statusCode >= 300 || !request.account) return payload;
    const scope = routeScope(request);
    if (scope !== 'manage' && scope !== 'admin') return payload;
    const action = request.routeOptions.schema?.operationId;
    if (!action || (request.method === 'GET' && !CHANGING_GETS.has(action))) return payload;
    const servedBy = reply.getHeader('x-zapgate-node');
    if (nodeId !== null && servedBy !== undefined && servedBy !== nodeId) return payload;
    const params = (request.params ?? {}) as { instanceId?: string; keyId?: string };
    const target = params.instanceId ?? params.keyId ?? createdId(payload);
    const after = { ...(request.body && typeof request.body === 'object' ? request.body : {}), ...request.params as object };
    try {
      await audit.record(
        { accountId: request.account.id, actor: request.apiKey ? `key:${request.apiKey.id}` : 'client-token', address: request.ip, requestId: request.id },
        action,
        target,
        instanceBefore(request),
        after,
      );
    } catch (err) {
      // The change is made; the failure to record it is loud in the logs rather than a failed answer.
      log.error({ err, action, target }, 'audit: recording a change failed');
    }
    return payload;
  };
}
