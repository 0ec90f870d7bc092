// Builds the Fastify application: framework settings, OpenAPI, hooks, and the route plugins of
// routes/index.ts, each list in its scope (public, account, instance).
import { forwardToOwner, nodeHeader } from './cluster-forwarding.js';
import type { ClusterRouting } from '../cluster/routing.js';
import { randomUUID } from 'node:crypto';
import Fastify, { LogController, type FastifyRequest } from 'fastify';
import swagger from '@fastify/swagger';
import swaggerUi from '@fastify/swagger-ui';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { Clock } from '../clock.js';
import type { Config } from '../config.js';
import type { Logger } from '../logger.js';
import { redactUrl } from '../logger.js';
import type { Metrics } from '../metrics.js';
import { accountHook, clientTokenOf, instanceHook } from './auth.js';
import { handleError } from './error-handler.js';
import { auditHook } from './audit-hook.js';
import { emptyBodyIsNoBody } from './empty-body.js';
import { RateLimiter } from './rate-limit.js';
import { lazyChildLogger } from './request-logger.js';
import { routeMetrics } from './route-metrics.js';
import { lazySerializerFactory, lazyValidatorFactory } from './lazy-compilers.js';
import { limitConnections, requestDeadline, timeoutOptions } from './connection-limits.js';
import { MethodIndex } from './method-index.js';
import { allNamedSchemas, ErrorBody } from './schemas/common.js';
import { routeLists, type HttpServices } from './routes/index.js';
import { PhoneCheckJobSchema } from './routes/contacts.js';
import { GroupSchema } from './routes/groups.js';
import { webhooksSection } from './schemas/callbacks.js';

const INSTANCE_PREFIX = '/instances/:instanceId/token/:instanceToken';

/** Tags in Z-API's order (its docs' sidebar, docs/zapi-surface.md §1), then zapgate's own. */
export const TAGS = [
  { name: 'instance', description: 'Create, pair, restart, disconnect and configure an instance (one WhatsApp number).' },
  { name: 'messages', description: 'Send every kind of message (queued durably: a 200 means it is on disk), react, forward, pin, delete.' },
  { name: 'chats', description: 'Conversations as the phone shows them: list, read, archive, pin, mute, clear, delete.' },
  { name: 'contacts', description: 'Contacts and numbers: who is on WhatsApp, names, pictures, blocking.' },
  { name: 'privacy', description: 'Who sees the last seen, photo, about, online status, and who may add the number to groups.' },
  { name: 'groups', description: 'Create and run groups: settings, metadata, links, participants, admins, join requests, subject, description and picture.' },
  { name: 'communities', description: 'Communities: create, list, read, link and unlink groups, who may add groups, deactivate, description; members and admins via the group routes with communityId.' },
  { name: 'newsletters', description: 'WhatsApp channels: create, follow, mute, edit, search, admins and ownership; post with the send endpoints and a `<digits>@newsletter` phone.' },
  { name: 'status', description: 'Status posts (stories): text, image, video, and replies to contacts\' posts.' },
  { name: 'business', description: 'WhatsApp Business accounts: the business profile (description, address, email, websites, categories, hours), tags (labels) on chats, chat notes, and the catalog (products, collections, cart).' },
  { name: 'message queue', description: 'What the instance still has to send; failed messages; queue settings.' },
  { name: 'webhooks', description: 'Where events are POSTed, their signing secret, delivery history, and received media links.' },
  { name: 'sinks', description: 'Message brokers (RabbitMQ, NATS JetStream) every reported event is published to, in order, per instance or per account.' },
  { name: 'event stream', description: 'The webhooks\' events as Server-Sent Events, per account or instance, resumable with Last-Event-ID.' },
  { name: 'campaigns', description: 'Reaching many customers safely: campaigns over one or more instances, and the account\'s opt-out list (scheduled sends: `scheduledAt` on every send).' },
  { name: 'api keys', description: 'An account\'s narrower keys: scopes, instances, address ranges, rate, expiry; rotated with an overlap, revoked at once (docs/api-keys.md).' },
  { name: 'audit', description: 'Who changed what: the account\'s hash-chained audit trail.' },
  { name: 'operations', description: 'Liveness, readiness and Prometheus metrics for operators (no token).' },
];

const INSTANCE_PARAM_TEXT: Readonly<Record<string, string>> = {
  instanceId: 'The instance: `instanceId` from POST /instances (or GET /instances).',
  instanceToken: 'The instance\'s token from POST /instances (or its last rotate-token).',
};

/** The instance path parameters come from the URL, with no schema text: say where their values come from. */
function describeInstanceParams<T extends { paths?: object }>(doc: T): T {
  for (const methods of Object.values(doc.paths ?? {}) as Record<string, { parameters?: { name?: string; in?: string; description?: string }[] }>[]) {
    for (const op of Object.values(methods)) {
      for (const p of op.parameters ?? []) {
        const text = p.in === 'path' && p.name ? INSTANCE_PARAM_TEXT[p.name] : undefined;
        if (text && !p.description) p.description = text;
      }
    }
  }
  return doc;
}

interface HttpDeps {
  config: Config;
  log: Logger;
  metrics: Metrics;
  /** What the routes call (routes/index.ts lists which route plugins use which). */
  services: HttpServices;
  /** Called when the server starts closing, before it waits for open requests (ends event streams). */
  onClosing?: () => void;
  ready(): Promise<{ ok: boolean; reason?: string }>;
  clock: Clock;
  /** Cluster mode: instance requests run on their owner node (http/cluster-forwarding.ts). */
  cluster?: ClusterRouting;
}

export async function buildHttpServer(deps: HttpDeps) {
  const routes = routeLists(deps.services, { mediaBodyLimit: deps.config.mediaBodyLimit, metrics: deps.metrics, ready: deps.ready });
  const app = Fastify({
    loggerInstance: deps.log,
    bodyLimit: deps.config.bodyLimit,
    // Every phase of a connection is timed (connection-limits.ts).
    ...timeoutOptions(deps.config.http),
    // Request logging is done once in onResponse, with the URL redacted (it can hold a token).
    logController: new LogController({ disableRequestLogging: true }),
    requestIdHeader: 'x-request-id',
    genReqId: () => randomUUID(),
    // The request's child logger is built only if the request logs (bench/enqueue).
    childLoggerFactory: lazyChildLogger,
    ajv: { customOptions: { coerceTypes: false, removeAdditional: false, allErrors: false } },
    schemaController: { compilersFactory: { buildSerializer: lazySerializerFactory(), buildValidator: lazyValidatorFactory() } },
    routerOptions: { maxParamLength: 200, ignoreTrailingSlash: true },
    // Router-level failures (bad percent-encoding, over-long segment) would otherwise answer with
    // Fastify's own body, which echoes the path and so the instanceToken.
    frameworkErrors: (err, request, reply) => {
      handleError(err, request, reply);
    },
  }).withTypeProvider<TypeBoxTypeProvider>();

  limitConnections(app.server, deps.config.http, deps.log, deps.clock);
  app.addHook('onRequest', requestDeadline(deps.config.http.requestTimeoutMs, deps.clock));
  app.decorateRequest('account', null);
  app.decorateRequest('instance', null);
  app.decorateRequest('apiKey', null);
  app.addSchema(ErrorBody);
  app.addSchema(GroupSchema);
  app.addSchema(PhoneCheckJobSchema);
  // Response models with a name (schemas/common.ts `named`), defined by the route modules imported above.
  for (const schema of allNamedSchemas()) app.addSchema(schema);
  app.setErrorHandler(handleError);
  // Fastify parses text/plain by default; the contract accepts JSON only (anything else → 415).
  app.removeContentTypeParser('text/plain');
  app.addHook('onRequest', emptyBodyIsNoBody);

  const methods = new MethodIndex();
  app.addHook('onRoute', (route) => methods.add(route.method, route.url));
  app.setNotFoundHandler((request, reply) => {
    const allowed = methods.allowed(request.url.split('?')[0] ?? '');
    if (allowed.length > 0) {
      return reply.code(405).header('allow', allowed.join(', ')).send({ error: 'Method Not Allowed', code: 'METHOD_NOT_ALLOWED' });
    }
    return reply.code(404).send({ error: 'Not found', code: 'ROUTE_NOT_FOUND' });
  });

  // Callback-style hooks and a level check before building the debug line: these run on every
  // request, including the send-accept hot path (bench/enqueue).
  app.addHook('onSend', (request, reply, payload, done) => {
    reply.header('x-request-id', request.id);
    done(null, payload);
  });
  const recordRequest = routeMetrics(deps.metrics);
  app.addHook('onResponse', (request, reply, done) => {
    recordRequest(request.method, request.routeOptions.url ?? 'unmatched', reply.statusCode, reply.elapsedTime / 1000);
    // 507 (disk full) is logged once per episode by the store's watcher, not once per request; a
    // 503 from /readyz is its answer, not a failure (a load balancer polls it every few seconds).
    if (reply.statusCode >= 500 && reply.statusCode !== 507 && request.routeOptions.url !== '/readyz') {
      request.log.warn({ method: request.method, url: redactUrl(request.url, clientTokenOf(request)), status: reply.statusCode }, 'request failed');
    } else if (deps.log.isLevelEnabled('debug')) {
      request.log.debug({ method: request.method, url: redactUrl(request.url, clientTokenOf(request)), status: reply.statusCode }, 'request');
    }
    done();
  });

  await app.register(swagger, {
    openapi: {
      openapi: '3.1.0',
      info: {
        title: 'zapgate',
        version: '1.0.0',
        description:
          'Self-hosted, Z-API-compatible WhatsApp HTTP gateway. Every request carries `Client-Token`; instance-scoped paths carry `instanceId` and `instanceToken`. Timestamps are milliseconds since the epoch. Errors are `{error, message?}`.',
      },
      components: {
        securitySchemes: {
          ClientToken: { type: 'apiKey', in: 'header', name: 'Client-Token' },
          // An account's narrower keys (docs/api-keys.md): each operation's `x-zapgate-scope` says which scope it needs.
          ApiKey: { type: 'http', scheme: 'bearer', description: 'An API key: `Authorization: Bearer zk_…` (or the key as `Client-Token`). Each operation needs the scope in its `x-zapgate-scope`; `admin` holds every scope.' },
          // Z-API's partner routes also take the account's token this way (docs/contract.md §3).
          PartnerToken: { type: 'http', scheme: 'bearer', description: 'The account\'s Client-Token as Z-API\'s Partner-Token: `Authorization: Bearer <token>`. Partner routes only.' },
        },
      },
      security: [{ ClientToken: [] }, { ApiKey: [] }],
      // TypeBox schemas are JSON Schema; the swagger typings want their own object model.
      webhooks: webhooksSection() as never,
      tags: TAGS,
    },
    refResolver: { buildLocalReference: (json, _baseUri, _fragment, i) => String(json.$id ?? `def-${i}`) },
    transformObject: (doc) => ('openapiObject' in doc ? describeInstanceParams(doc.openapiObject) : doc.swaggerObject),
  });
  await app.register(swaggerUi, { routePrefix: '/docs' });
  app.get('/openapi.json', { schema: { hide: true } }, async () => app.swagger());

  for (const plugin of routes.public) await app.register(plugin);
  if (deps.onClosing) {
    const closing = deps.onClosing;
    app.addHook('preClose', (done) => {
      closing();
      done();
    });
  }

  if (deps.cluster) app.addHook('onSend', nodeHeader(deps.cluster.nodeId));
  const limiter = new RateLimiter(deps.config.rateLimitPerSecond, () => deps.clock.now());
  // Each key with a rate of its own has its own bucket (one limiter per distinct rate).
  const keyLimiters = new Map<number, RateLimiter>();
  const keyLimiter = (keyId: string, rate: number): number => {
    let l = keyLimiters.get(rate);
    if (!l) keyLimiters.set(rate, (l = new RateLimiter(rate, () => deps.clock.now())));
    return l.take(keyId);
  };
  const authenticateAccount = accountHook(deps.services.accounts, deps.services.apiKeys, limiter, keyLimiter);
  const authenticateInstance = instanceHook(deps.services.instances);

  await app.register(async (scoped) => {
    scoped.addHook('onRequest', authenticateAccount);
    scoped.addHook('onSend', auditHook(deps.services.audit, deps.log, deps.cluster?.nodeId ?? null));
    for (const plugin of routes.account) await scoped.register(plugin);
    await scoped.register(
      async (inst) => {
        inst.addHook('onRequest', authenticateInstance);
        if (deps.cluster) inst.addHook('preHandler', forwardToOwner(deps.cluster, deps.clock));
        for (const plugin of routes.instance) await inst.register(plugin);
      },
      { prefix: INSTANCE_PREFIX },
    );
  });

  return app;
}

export type { FastifyRequest };
export type HttpServer = Awaited<ReturnType<typeof buildHttpServer>>;
