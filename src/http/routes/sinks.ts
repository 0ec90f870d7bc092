// Tag "sinks": message brokers every reported event is published to (docs/contract.md §5b), per
// instance and per account, over the environment's default (ZAPGATE_SINK_*).
import { Type, type FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { SINK_KINDS, SINK_NAME_PATTERN, type SinkKind } from '../../domain/event-sink.js';
import type { SinksService } from '../../services/sinks-service.js';
import { accountOf, instanceOf } from '../auth.js';
import { errorResponses, named, ValueTrue } from '../schemas/common.js';

const tags = ['sinks'];

const EXAMPLE_URL: Record<SinkKind, string> = { rabbitmq: 'amqps://zapgate:s3cret@example.com:5671/events', nats: 'nats://zapgate:s3cret@example.com:4222' };
const WHAT: Record<SinkKind, string> = {
  rabbitmq:
    'RabbitMQ (AMQP 0-9-1): each event is published, persistent, to the topic exchange `exchange` (declared durable if missing) with routing key `<prefix>.<instanceId>.<eventType>`, `message_id` = the event id (the `webhook-id`), the webhook\'s exact JSON as body and the Standard Webhooks headers (`webhook-id`, `webhook-timestamp`, `webhook-signature`, signed with the instance\'s webhook secret); it counts as published once the broker confirms it (publisher confirms).',
  nats:
    'NATS JetStream: each event is published on subject `<prefix>.<instanceId>.<eventType>` with `Nats-Msg-Id` = the event id (so the stream de-duplicates a republished event within its duplicate window), the webhook\'s exact JSON as body and the Standard Webhooks headers; it counts as published once the stream acknowledges it. Create a stream capturing `<prefix>.>` first: without one every publish fails and is retried.',
};
const COMMON =
  ' Every event the instance reports goes to the sink, in order per instance: a failed publish is retried (immediately, 5 s, 5 min, 30 min, 2 h, 5 h, 10 h, 10 h) and nothing later overtakes it; an event still unpublished after that span is `failed` and can be replayed (POST …/webhook-deliveries/{id}/retry). The URL may carry a user and password; it is shown and logged only masked. Its host must resolve to a public address (loopback and private ranges only when listed in ZAPGATE_ALLOW_HOSTS); otherwise 400 and nothing changes. `value: ""` forgets this scope\'s setting (the wider one applies again); `enabled: false` switches the sink off here whatever the wider scopes say.';

const SinkBody = (kind: SinkKind) =>
  Type.Object(
    {
      value: Type.String({ maxLength: 2048, description: `The broker URL (${kind === 'rabbitmq' ? 'amqp:// or amqps://' : 'nats:// or tls://'}), or "" to forget this setting.` }),
      enabled: Type.Optional(Type.Boolean({ description: 'false: no publishing to this sink at this scope (default true).' })),
      ...(kind === 'rabbitmq' ? { exchange: Type.Optional(Type.String({ pattern: SINK_NAME_PATTERN, maxLength: 200, description: 'The topic exchange (default "zapgate").' })) } : {}),
      prefix: Type.Optional(Type.String({ pattern: SINK_NAME_PATTERN, maxLength: 200, description: 'First part of the routing key / subject (default "zapgate").' })),
    },
    { additionalProperties: false, examples: [kind === 'rabbitmq' ? { value: EXAMPLE_URL.rabbitmq, exchange: 'zapgate', prefix: 'zapgate' } : { value: EXAMPLE_URL.nats, prefix: 'zapgate' }] },
  );

const SinkList = named(
  'SinkList',
  'The broker sinks in force, one entry per sink set at this scope or a wider one (none set: empty). `scope` says where the setting comes from; `health` and `lastError` are this gateway\'s last publish to that kind of sink.',
  Type.Array(
    Type.Object({
      kind: Type.Union(SINK_KINDS.map((k) => Type.Literal(k))),
      enabled: Type.Boolean(),
      url: Type.String({ description: 'Masked: the password is `****`.' }),
      exchange: Type.Union([Type.String(), Type.Null()]),
      prefix: Type.String(),
      scope: Type.Union([Type.Literal('instance'), Type.Literal('account'), Type.Literal('environment')]),
      health: Type.Union([Type.Literal('unused'), Type.Literal('up'), Type.Literal('down')]),
      lastError: Type.Union([Type.String(), Type.Null()]),
    }),
    { examples: [[{ kind: 'rabbitmq', enabled: true, url: 'amqps://zapgate:****@example.com:5671/events', exchange: 'zapgate', prefix: 'zapgate', scope: 'account', health: 'up', lastError: null }]] },
  ),
);

/** `PUT …/update-sink-<kind>` and `GET …/sinks` of one instance. */
export function instanceSinkRoutes(sinks: SinksService): FastifyPluginAsyncTypebox {
  return async (app) => {
    for (const kind of SINK_KINDS) {
      app.put(
        `/update-sink-${kind}`,
        {
          schema: {
            tags,
            operationId: `sinks_instance-update-${kind}`, 'x-zapgate-scope': 'manage',
            summary: `Publish this instance's events to ${kind === 'rabbitmq' ? 'RabbitMQ' : 'NATS JetStream'}`,
            description: WHAT[kind] + COMMON + ' This setting overrides the account\'s and the environment\'s for this instance.',
            body: SinkBody(kind),
            response: { 200: ValueTrue, ...errorResponses() },
          },
        },
        async (request) => {
          await sinks.setForInstance(instanceOf(request).id, kind, request.body);
          return { value: true };
        },
      );
    }
    app.get(
      '/sinks',
      {
        schema: { tags, operationId: 'sinks_instance-list', 'x-zapgate-scope': 'manage', summary: "The broker sinks this instance's events go to", description: 'Resolved: the instance\'s own setting, else its account\'s, else the environment\'s.', response: { 200: SinkList, ...errorResponses() } },
      },
      async (request) => sinks.forInstance(instanceOf(request)),
    );
  };
}

/** `PUT /update-sink-<kind>` and `GET /sinks`: the account's default for its instances. */
export function accountSinkRoutes(sinks: SinksService): FastifyPluginAsyncTypebox {
  return async (app) => {
    for (const kind of SINK_KINDS) {
      app.put(
        `/update-sink-${kind}`,
        {
          schema: {
            tags,
            operationId: `sinks_account-update-${kind}`, 'x-zapgate-scope': 'manage',
            summary: `Publish the events of every instance of the account to ${kind === 'rabbitmq' ? 'RabbitMQ' : 'NATS JetStream'}`,
            description: WHAT[kind] + COMMON + ' This is the account\'s default: an instance\'s own setting overrides it.',
            body: SinkBody(kind),
            response: { 200: ValueTrue, ...errorResponses() },
          },
        },
        async (request) => {
          await sinks.setForAccount(accountOf(request).id, kind, request.body);
          return { value: true };
        },
      );
    }
    app.get(
      '/sinks',
      {
        schema: { tags, operationId: 'sinks_account-list', 'x-zapgate-scope': 'manage', summary: "The account's default broker sinks", description: 'The account\'s own setting, else the environment\'s.', response: { 200: SinkList, ...errorResponses() } },
      },
      async (request) => sinks.forAccount(accountOf(request).id),
    );
  };
}
