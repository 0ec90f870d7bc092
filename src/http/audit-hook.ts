// Records every change a request made in the audit trail (services/audit-service.ts): a successful
// request to a route whose declared scope is `manage` or `admin` (src/http/scopes.ts), other than a
// GET; a route declares `'x-zapgate-audit': true` to be recorded outside that rule (Z-API's GETs that
// change state; campaigns started and stopped, whose scope is `send`), or `false` to be left out.
// Written before the answer is sent, so a client that got its 2xx finds the entry.
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { Logger } from '../logger.js';
import type { AuditService } from '../services/audit-service.js';
import { routeScope } from './scopes.js';

declare module 'fastify' {
  interface FastifySchema {
    /** Whether a successful request to this route is an audited change, where the scope rule above does not say it (docs/api-keys.md). */
    'x-zapgate-audit'?: boolean;
  }
}

/** Whether a successful request to this route is recorded. */
export function auditedRoute(request: FastifyRequest): boolean {
  const declared = (request.routeOptions.schema as { 'x-zapgate-audit'?: boolean } | undefined)?.['x-zapgate-audit'];
  if (declared !== undefined) return declared;
  const scope = routeScope(request);
  return (scope === 'manage' || scope === 'admin') && request.method !== 'GET';
}

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
    const action = request.routeOptions.schema?.operationId;
    if (!action || !auditedRoute(request)) return payload;
    const servedBy = reply.getHeader('x-zapgate-node');
    if (nodeId !== null && servedBy !== undefined && servedBy !== nodeId) return payload;
    const params = (request.params ?? {}) as { instanceId?: string; keyId?: string; campaignId?: string };
    const target = params.instanceId ?? params.keyId ?? params.campaignId ?? createdId(payload);
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
