// Cluster mode: any node accepts any request. An instance's requests run on the node that owns it:
// this hook (after authentication and validation) forwards them there and relays the answer. A
// request for an instance with no live owner runs here: a send is queued durably (the next owner
// sends it), a command that needs the session answers 503 with Retry-After (errors.noOwner; the
// request is marked ownerless, http/ownerless.ts, so that the session's "not connected" says so).
// Node URLs come from the nodes' own settings (ZAPGATE_NODE_URL), never from a request.
import type { FastifyReply, FastifyRequest } from 'fastify';
import { request as undiciRequest, type Dispatcher } from 'undici';
import { PeriodicTask, type Clock } from '../clock.js';
import { errors } from '../errors.js';
import type { ClusterRouting } from '../cluster/routing.js';
import { markOwnerless } from './ownerless.js';

const FORWARDED_BY = 'x-zapgate-forwarded-by';
const AUTH = 'x-zapgate-cluster-auth';
/** Not copied either way: they describe one hop, not the request. */
const HOP_HEADERS = new Set(['host', 'connection', 'keep-alive', 'content-length', 'transfer-encoding', 'upgrade', 'te', 'trailer', 'proxy-connection', FORWARDED_BY, AUTH]);

/** The onSend hook naming the node that served each answer (a forwarded answer keeps its owner's name). */
export function nodeHeader(nodeId: string) {
  return function name(_request: FastifyRequest, reply: FastifyReply, payload: unknown, done: (err: null, payload: unknown) => void): void {
    if (!reply.hasHeader('x-zapgate-node')) reply.header('x-zapgate-node', nodeId);
    done(null, payload);
  };
}

/** The preHandler of instance-scoped routes. */
export function forwardToOwner(routing: ClusterRouting, clock: Clock) {
  return async function forward(request: FastifyRequest, reply: FastifyReply): Promise<void> {
    const instanceId = (request.params as { instanceId?: string }).instanceId;
    const by = request.headers[FORWARDED_BY];
    if (by !== undefined) {
      if (!routing.verify(header(request.headers[AUTH]), request.method, request.url)) throw errors.unauthorizedClient();
      // Forwarded by a peer: handled here, never forwarded again. Looking it up adopts an instance
      // the database has just given this node (a new one assigned by the peer).
      // The owner the peer saw may have let it go since.
      if (instanceId && (await routing.placement(instanceId)).kind !== 'here') markOwnerless(request, routing.retryAfterSeconds);
      return;
    }
    // Long-lived streams read the shared store: any node serves them.
    if (request.routeOptions.url?.endsWith('/events')) return;
    if (!instanceId) return;
    const place = await routing.placement(instanceId);
    if (place.kind === 'nobody') markOwnerless(request, routing.retryAfterSeconds);
    if (place.kind !== 'forward') return;
    try {
      const headers: Record<string, string> = {};
      for (const [k, v] of Object.entries(request.headers)) if (v !== undefined && !HOP_HEADERS.has(k)) headers[k] = Array.isArray(v) ? v.join(', ') : v;
      headers[FORWARDED_BY] = routing.nodeId;
      headers[AUTH] = routing.sign(request.method, request.url);
      headers['x-request-id'] = request.id;
      const body = request.body === undefined ? undefined : JSON.stringify(request.body);
      if (body !== undefined) headers['content-type'] = 'application/json';
      // A paused owner accepts the connection and never answers: while the request waits, the
      // owner's lease is checked every heartbeat, and a lost lease ends the wait (503).
      const abort = new AbortController();
      const watch = new PeriodicTask(clock, {
        everyMs: routing.ownerCheckMs,
        timing: 'guard',
        run: async () => {
          if (!(await routing.stillOwner(instanceId, place.nodeId))) abort.abort(new Error(`${place.nodeId} no longer owns the instance`));
        },
        // A failed read proves nothing: the next check, or the request's own timeouts, decide.
        onError: () => undefined,
      });
      watch.start();
      let payload: Buffer;
      let res: Dispatcher.ResponseData;
      try {
        res = await undiciRequest(`${place.url}${request.url}`, {
          method: request.method as Dispatcher.HttpMethod,
          headers,
          body,
          dispatcher: routing.agent,
          headersTimeout: routing.timeoutMs,
          bodyTimeout: routing.timeoutMs,
          signal: abort.signal,
        });
        payload = Buffer.from(await res.body.arrayBuffer());
      } finally {
        void watch.stop();
      }
      routing.forwarded('ok');
      reply.code(res.statusCode);
      for (const [k, v] of Object.entries(res.headers)) {
        if (v === undefined || HOP_HEADERS.has(k) || k === 'x-request-id' || k === 'date') continue;
        reply.header(k, v);
      }
      await reply.send(payload);
    } catch (err) {
      routing.forwarded('failed');
      routing.forget(instanceId);
      request.log.warn({ err, owner: place.nodeId }, 'cluster: forwarding to the instance owner failed');
      throw errors.noOwner(routing.retryAfterSeconds);
    }
  };
}

function header(v: string | string[] | undefined): string | undefined {
  return Array.isArray(v) ? v[0] : v;
}
