// Tag "webhooks", replay part: list deliveries (e.g. the failed ones) and retry one.
import { Type, type TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyInstance } from 'fastify';
import type { WebhookDeliveriesService } from '../../outbox/replay.js';
import { instanceOf } from '../auth.js';
import { errorResponses, named } from '../schemas/common.js';

const tags = ['webhooks'];

const DeliveryFields = Type.Object({
  id: Type.String({ description: 'Delivery id (for the retry endpoint).' }),
  webhookId: Type.String({ description: 'The `webhook-id` header of every attempt, stable across retries and replays.' }),
  type: Type.String({ description: 'Event type: ReceivedCallback, MessageStatusCallback, DeliveryCallback, ConnectedCallback, DisconnectedCallback.' }),
  kind: Type.String({ description: 'Which webhook: received, message_status, delivery, connected, disconnected.' }),
  url: Type.String(),
  status: Type.Union([Type.Literal('pending'), Type.Literal('retrying'), Type.Literal('delivered'), Type.Literal('failed')]),
  attempts: Type.Integer(),
  lastStatus: Type.Union([Type.Integer(), Type.Null()], { description: 'HTTP status of the last attempt, null if none was received.' }),
  lastError: Type.Union([Type.String(), Type.Null()]),
  nextAttemptAt: Type.Union([Type.Integer(), Type.Null()], { description: 'When the next attempt is due (ms since the epoch); null once delivered or failed.' }),
  createdAt: Type.Integer(),
  updatedAt: Type.Integer(),
  payload: Type.Unknown({ description: 'The event exactly as delivered.' }),
});
const DELIVERY_EXAMPLE = {
  id: '01JDX4A7K2P9Q3R8S6T5V4W3X2',
  webhookId: 'msg_01JDX4A7K2P9Q3R8S6T5V4W3X2',
  type: 'ReceivedCallback',
  kind: 'received',
  url: 'https://example.com/zapgate/webhook',
  status: 'failed',
  attempts: 9,
  lastStatus: 503,
  lastError: 'HTTP 503',
  nextAttemptAt: null,
  createdAt: 1764000000000,
  updatedAt: 1764120000000,
  payload: { type: 'ReceivedCallback', phone: '5511999999999', text: { message: 'Hi' } },
};
const Delivery = named('WebhookDelivery', 'One event sent (or to be sent) to a webhook URL, with its attempts.', Type.Composite([DeliveryFields], { examples: [DELIVERY_EXAMPLE] }));
const DeliveryPage = named(
  'WebhookDeliveryPage',
  'A page of deliveries, oldest first; pass `pagingState` back for the next one (null: last page).',
  Type.Object({ deliveries: Type.Array(DeliveryFields), pagingState: Type.Union([Type.String(), Type.Null()]) }, { examples: [{ deliveries: [DELIVERY_EXAMPLE], pagingState: null }] }),
);

export function webhookDeliveryRoutes(deliveries: WebhookDeliveriesService) {
  return async (base: FastifyInstance): Promise<void> => {
    const app = base.withTypeProvider<TypeBoxTypeProvider>();

    app.get(
      '/webhook-deliveries',
      {
        schema: {
          tags,
          'x-zapgate-scope': 'manage',
          operationId: 'webhooks_deliveries-list',
          summary: 'List webhook deliveries, oldest first (paged)',
          description:
            'One delivery per event sent to a configured URL (events of a kind with no URL are not delivered; the event stream, GET /events, carries every event). Retries: immediately, 5 s, 5 min, 30 min, 2 h, 5 h, 10 h, 10 h (±20 %, or later if the receiver sends Retry-After); then `failed`, kept 7 days for replay. Delivered ones are listed for an hour. Per URL, events go one at a time in order while the receiver answers 2xx; a failed one waits for its retry while later ones go ahead.',
          querystring: Type.Object({
            status: Type.Optional(Type.Union([Type.Literal('pending'), Type.Literal('retrying'), Type.Literal('delivered'), Type.Literal('failed')])),
            pageSize: Type.Optional(Type.String({ pattern: '^[1-9][0-9]{0,2}$|^1000$', description: '1–1000, default 100.' })),
            pagingState: Type.Optional(Type.String({ maxLength: 64, description: 'From the previous page.' })),
          }),
          response: { 200: DeliveryPage, ...errorResponses() },
        },
      },
      async (request) =>
        deliveries.list(instanceOf(request).id, request.query.status, Number(request.query.pageSize ?? 100), request.query.pagingState ?? null),
    );

    app.post(
      '/webhook-deliveries/:deliveryId/retry',
      {
        schema: {
          tags,
          'x-zapgate-scope': 'manage',
          operationId: 'webhooks_deliveries-retry',
          summary: 'Replay a failed delivery',
          description:
            'Puts a failed delivery back on the retry schedule, with the same `webhook-id`, aimed at the URL now set for its kind. 404 if unknown, 409 if it is not failed or no URL is set.',
          params: Type.Object({ deliveryId: Type.String({ minLength: 1, maxLength: 64, examples: ['01JDX4A7K2P9Q3R8S6T5V4W3X2'] }) }, { additionalProperties: true }),
          response: { 200: Delivery, ...errorResponses(409) },
        },
      },
      async (request) => deliveries.retry(instanceOf(request).id, request.params.deliveryId),
    );
  };
}
