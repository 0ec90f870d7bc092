// Tag "webhooks" / "sinks": which events an instance's webhook URLs (Z-API's update-filters) and
// each broker sink receive (docs/contract.md §5b).
import { Type, type FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { CALLBACK_TYPE_FILTERS, MESSAGE_FILTERS } from '../../domain/event-filter.js';
import { SINK_KINDS } from '../../domain/event-sink.js';
import type { EventFiltersService } from '../../services/event-filters-service.js';
import { instanceOf } from '../auth.js';
import { errorResponses, named, ValueTrue } from '../schemas/common.js';

const Chat = Type.String({ minLength: 1, maxLength: 64, description: 'A phone number (digits, as in `phone`) or a group id (`<digits>-group`).' });

const filterFields = {
  messageFilters: Type.Optional(
    Type.Array(Type.Union(MESSAGE_FILTERS.map((f) => Type.Literal(f))), {
      maxItems: MESSAGE_FILTERS.length * 2,
      description:
        'Received messages (ReceivedCallback) left out: FILTER_FROM_GROUP (in groups), FILTER_FROM_PRIVATE_CHAT (in 1:1 chats), FILTER_TEXT_MESSAGE, FILTER_IMAGE_MESSAGE, FILTER_VIDEO_MESSAGE, FILTER_AUDIO_MESSAGE, FILTER_DOCUMENT_MESSAGE. Other event types are not affected.',
    }),
  ),
  callbackTypeFilters: Type.Optional(
    Type.Array(Type.Union(CALLBACK_TYPE_FILTERS.map((f) => Type.Literal(f))), {
      maxItems: CALLBACK_TYPE_FILTERS.length * 2,
      description:
        'Event types left out, even with a URL set: FILTER_RECEIVED_CALLBACK, FILTER_DELIVERY_CALLBACK, FILTER_CONNECTED_CALLBACK, FILTER_DISCONNECTED_CALLBACK, FILTER_PRESENCE_CHAT_CALLBACK, FILTER_MESSAGE_STATUS_CALLBACK.',
    }),
  ),
  includeChats: Type.Optional(
    Type.Array(Chat, { maxItems: 1000, description: 'zapgate: when not empty, only events of these chats pass (among events that name a chat: received, message status, delivery, chat presence; connected/disconnected are not affected).' }),
  ),
  excludeChats: Type.Optional(Type.Array(Chat, { maxItems: 1000, description: 'zapgate: events of these chats are left out.' })),
};

const FILTER_TEXT =
  ' The body replaces the whole filter of this target (an absent list is empty; `{}` removes every filter). A filtered event gets no delivery for this target and is not replayed to it later; the other targets (the webhooks, each sink) are unaffected, and so are the event stream and the pull API. The change applies to the next event committed.';

const FilterView = Type.Object({
  messageFilters: Type.Array(Type.String()),
  callbackTypeFilters: Type.Array(Type.String()),
  includeChats: Type.Array(Type.String()),
  excludeChats: Type.Array(Type.String()),
});

const EMPTY = { messageFilters: [], callbackTypeFilters: [], includeChats: [], excludeChats: [] };

const Filters = named(
  'EventFilters',
  'The filters in force: the webhooks\' (update-filters) and each broker sink\'s (update-sink-filters). Empty lists: everything passes.',
  Type.Object(
    { webhooks: FilterView, sinks: Type.Object(Object.fromEntries(SINK_KINDS.map((k) => [k, FilterView]))) },
    { examples: [{ webhooks: { ...EMPTY, messageFilters: ['FILTER_FROM_GROUP'], callbackTypeFilters: ['FILTER_PRESENCE_CHAT_CALLBACK'] }, sinks: { rabbitmq: { ...EMPTY, excludeChats: ['5511999999999'] }, nats: EMPTY } }] },
  ),
);

/** `PUT …/update-filters`, `PUT …/update-sink-filters`, `GET …/filters`. */
export function eventFilterRoutes(filters: EventFiltersService): FastifyPluginAsyncTypebox {
  return async (app) => {
    app.put(
      '/update-filters',
      {
        schema: {
          tags: ['webhooks'],
          operationId: 'webhooks_update-filters',
          'x-zapgate-scope': 'manage',
          summary: 'Choose which events the webhooks receive',
          description: "Z-API's update-filters, for this instance's webhook URLs; `includeChats` and `excludeChats` are zapgate's." + FILTER_TEXT,
          body: Type.Object(filterFields, {
            additionalProperties: false,
            examples: [{ messageFilters: ['FILTER_FROM_GROUP', 'FILTER_AUDIO_MESSAGE'], callbackTypeFilters: ['FILTER_PRESENCE_CHAT_CALLBACK'], excludeChats: ['5511999999999'] }],
          }),
          response: { 200: ValueTrue, ...errorResponses() },
        },
      },
      async (request) => {
        await filters.setForWebhooks(instanceOf(request).id, request.body);
        return { value: true };
      },
    );

    app.put(
      '/update-sink-filters',
      {
        schema: {
          tags: ['sinks'],
          operationId: 'sinks_update-filters',
          'x-zapgate-scope': 'manage',
          summary: 'Choose which events one broker sink receives',
          description: "zapgate's: update-filters' fields for one broker sink (`sink`) of this instance, whichever scope (instance, account, environment) its connection comes from." + FILTER_TEXT,
          body: Type.Object(
            { sink: Type.Union(SINK_KINDS.map((k) => Type.Literal(k)), { description: 'The sink the filter is for.' }), ...filterFields },
            { additionalProperties: false, examples: [{ sink: 'rabbitmq', callbackTypeFilters: ['FILTER_PRESENCE_CHAT_CALLBACK'], includeChats: ['120363019502650977-group'] }] },
          ),
          response: { 200: ValueTrue, ...errorResponses() },
        },
      },
      async (request) => {
        const { sink, ...filter } = request.body;
        await filters.setForSink(instanceOf(request).id, sink, filter);
        return { value: true };
      },
    );

    app.get(
      '/filters',
      {
        schema: {
          tags: ['webhooks'],
          operationId: 'webhooks_filters',
          'x-zapgate-scope': 'read',
          summary: 'The event filters of the webhooks and of each broker sink',
          description: 'As set with update-filters and update-sink-filters (chats normalised: digits only for phones).',
          response: { 200: Filters, ...errorResponses() },
        },
      },
      async (request) => filters.get(instanceOf(request).id),
    );
  };
}
