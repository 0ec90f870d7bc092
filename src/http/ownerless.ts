// Cluster mode: the requests of an instance that no live node runs right now (a failover or a
// hand-over under way). The forwarding hook (http/cluster-forwarding.ts) marks them; the error
// handler (http/error-handler.ts) then answers a session's "not connected" as what it is — no owner
// yet, 503 with Retry-After — instead of 409, which would tell the client the number is offline.
import type { FastifyRequest } from 'fastify';

const ownerless = new WeakMap<FastifyRequest, number>();

export function markOwnerless(request: FastifyRequest, retryAfterSeconds: number): void {
  ownerless.set(request, retryAfterSeconds);
}

/** Seconds to wait before retrying, when the request's instance had no live owner; else undefined. */
export function ownerlessRetryAfter(request: FastifyRequest): number | undefined {
  return ownerless.get(request);
}
