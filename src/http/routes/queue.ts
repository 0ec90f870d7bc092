// Tag "message queue": what the instance still has to send, and queue settings.
import { Type, type FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { InstancesService } from '../../services/instances-service.js';
import type { QueueService } from '../../services/queue-service.js';
import { instanceOf } from '../auth.js';
import { errorResponses, named, ValueTrue } from '../schemas/common.js';

const tags = ['message queue'];
/** `failed`: messages the sender gave up on, with `error` and `errorCode` (the DeliveryCallback's). */
const QueueStatus = Type.Union([Type.Literal('waiting'), Type.Literal('failed')], {
  description: '`waiting` (default): queued or being sent. `failed`: given up, with `error` and `errorCode`.',
});
const QueuePage = named(
  'QueuePage',
  'A page of queued (or failed) messages, oldest first; pass `pagingState` back for the next page.',
  Type.Object(
    {
      messages: Type.Array(Type.Object({}, { additionalProperties: true }), {
        description: "Each item has zapgate's fields (zaapId, messageId, phone, type, state, attempts, error…) and Z-API's (_id, ZaapId, MessageId, InstanceId, Phone, Message (the text or caption, cut at 500 characters), DelayMessage, DelayTyping, IsTrial, Created).",
      }),
      pagingState: Type.Union([Type.String(), Type.Null()]),
      hasMore: Type.Boolean({ description: 'Whether another page follows (pass pagingState to get it).' }),
    },
    { examples: [{ messages: [{ zaapId: '01JDX3N8W4M9Q2R7T5V6Y8Z0AB', messageId: '3EB0A7C2F5D1E8B94C6A', phone: '5511999999999', type: 'text', state: 'queued', attempts: 0 }], pagingState: null, hasMore: false }] },
  ),
);
const QueueCount = named('QueueCount', 'How many messages wait to be sent.', Type.Object({ count: Type.Integer() }, { examples: [{ count: 3 }] }));
const LIST_TEXT =
  'Messages not yet sent, in the order they were accepted (a scheduled one, with its `scheduledAt`, leaves at that time and holds up none behind it; `status=failed`: the ones given up, with `error` and `errorCode`). A message being retried shows `attempts`, `error` and `nextAttemptAt`. A page ends early, with a `pagingState`, once it holds 4 MiB.';

export function queueRoutes(queue: QueueService, instances: InstancesService): FastifyPluginAsyncTypebox {
  return async (app) => {
    app.post(
      '/queue',
      {
        // Every field is optional, so Z-API clients may POST with no body at all.
        preValidation: async (request) => {
          if (request.body === undefined || request.body === null) request.body = {};
        },
        schema: {
          tags,
          'x-zapgate-scope': 'read',
          operationId: 'queue_list-paged',
          summary: 'List queued messages, oldest first (paged)',
          description: `${LIST_TEXT} Z-API's POST form: the paging fields in the body, which may be omitted.`,
          body: Type.Optional(
            Type.Object(
              {
                pageSize: Type.Optional(Type.Integer({ minimum: 1, maximum: 1000 })),
                pagingState: Type.Optional(Type.Union([Type.String({ maxLength: 64 }), Type.Null()])),
                status: Type.Optional(QueueStatus),
              },
              { examples: [{ pageSize: 100, pagingState: null }] },
            ),
          ),
          response: { 200: QueuePage, ...errorResponses() },
        },
      },
      async (request) =>
        queue.list(instanceOf(request).id, request.body?.pageSize ?? 100, request.body?.pagingState ?? null, request.body?.status ?? 'waiting'),
    );

    app.get(
      '/queue',
      {
        schema: {
          tags,
          'x-zapgate-scope': 'read',
          operationId: 'queue_list',
          summary: 'List queued messages, oldest first',
          description: `${LIST_TEXT} The GET form: paging in the query (\`pageSize\` 1–1000, default 100).`,
          querystring: Type.Object({
            pageSize: Type.Optional(Type.String({ pattern: '^[1-9][0-9]{0,2}$|^1000$' })),
            pagingState: Type.Optional(Type.String({ maxLength: 64 })),
            status: Type.Optional(QueueStatus),
          }),
          response: { 200: QueuePage, ...errorResponses() },
        },
      },
      async (request) =>
        queue.list(instanceOf(request).id, Number(request.query.pageSize ?? 100), request.query.pagingState ?? null, request.query.status ?? 'waiting'),
    );

    app.get(
      '/queue/count',
      {
        schema: {
          tags,
          'x-zapgate-scope': 'read',
          operationId: 'queue_count',
          summary: 'How many messages wait',
          description: 'Messages queued or being sent (not the failed ones).',
          response: { 200: QueueCount, ...errorResponses() },
        },
      },
      async (request) => ({ count: await queue.count(instanceOf(request).id) }),
    );

    app.delete(
      '/queue',
      {
        schema: {
          tags,
          'x-zapgate-scope': 'send',
          operationId: 'queue_clear',
          summary: 'Remove every message that has not started sending',
          description: 'A message already handed to the network (or in the middle of being sent) is not recalled; the others are deleted with any media only they referenced.',
          response: { 200: ValueTrue, ...errorResponses() },
        },
      },
      async (request) => {
        await queue.clear(instanceOf(request).id);
        return { value: true };
      },
    );

    app.delete(
      '/queue/:zaapId',
      {
        schema: {
          tags,
          'x-zapgate-scope': 'send',
          operationId: 'queue_remove',
          summary: 'Remove one queued message',
          description: '`zaapId` is what the send answered. 409 when the message has already started sending; 404 when it is not in the queue.',
          params: Type.Object({ zaapId: Type.String({ minLength: 1, maxLength: 64, examples: ['01JDX3N8W4M9Q2R7T5V6Y8Z0AB'] }) }, { additionalProperties: true }),
          response: { 200: ValueTrue, ...errorResponses(409) },
        },
      },
      async (request) => {
        await queue.remove(instanceOf(request).id, request.params.zaapId);
        return { value: true };
      },
    );

    app.put(
      '/update-queue-settings',
      {
        schema: {
          tags,
          'x-zapgate-scope': 'manage',
          operationId: 'queue_update-settings',
          summary: 'Refuse sends while disconnected (409) instead of queueing them',
          description:
            '`true`: while the instance is not connected, send endpoints answer 409 `Instance not connected` and queue nothing. `false` (default): sends are queued (up to `ZAPGATE_QUEUE_MAX_DISCONNECTED`) and leave once it connects.',
          body: Type.Object({ disableEnqueueWhenDisconnected: Type.Boolean() }, { examples: [{ disableEnqueueWhenDisconnected: true }] }),
          response: { 200: ValueTrue, ...errorResponses() },
        },
      },
      async (request) => {
        await instances.updateSettings(instanceOf(request).id, { disableEnqueueWhenDisconnected: request.body.disableEnqueueWhenDisconnected });
        return { value: true };
      },
    );
  };
}
