// Tag "webhooks": where events go, and the secret that signs them.
import { Type, type FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { InstancesService } from '../../services/instances-service.js';
import type { WebhooksService } from '../../services/webhooks-service.js';
import type { WebhookKind } from '../../store/webhooks-repo.js';
import { instanceOf } from '../auth.js';
import { errorResponses, ValueTrue } from '../schemas/common.js';

const tags = ['webhooks'];
const Url = Type.String({
  maxLength: 2048,
  description: 'Absolute https URL (plain http only with ZAPGATE_WEBHOOK_ALLOW_HTTP=true); "" clears it. Hosts resolving to loopback, link-local, metadata or private ranges are refused unless allow-listed.',
});

const SINGLE: ReadonlyArray<[string, WebhookKind, string]> = [
  ['update-webhook-received', 'received', 'incoming messages and notifications (ReceivedCallback)'],
  ['update-webhook-message-status', 'message_status', 'message status changes (MessageStatusCallback)'],
  ['update-webhook-delivery', 'delivery', 'sent / failed-to-send reports (DeliveryCallback)'],
  ['update-webhook-connected', 'connected', 'connection events (ConnectedCallback)'],
  ['update-webhook-disconnected', 'disconnected', 'disconnection events (DisconnectedCallback)'],
  ['update-webhook-chat-presence', 'chat_presence', 'contacts\' presence in chats: typing, recording, online (PresenceChatCallback)'],
];

export function webhookRoutes(webhooks: WebhooksService, instances: InstancesService): FastifyPluginAsyncTypebox {
  return async (app) => {
    for (const [path, kind, what] of SINGLE) {
      app.put(
        `/${path}`,
        {
          schema: {
            tags,
            operationId: `webhooks_${path}`,
            summary: `Set the webhook URL for ${what}`,
            body: Type.Object({ value: Url }),
            response: { 200: ValueTrue, ...errorResponses() },
          },
        },
        async (request) => {
          await webhooks.setUrl(instanceOf(request).id, [kind], request.body.value);
          return { value: true };
        },
      );
    }

    app.put(
      '/update-every-webhooks',
      {
        schema: {
          tags,
          operationId: 'webhooks_update-every-webhooks',
          summary: 'Set every webhook URL at once',
          body: Type.Object({ value: Url, notifySentByMe: Type.Optional(Type.Boolean()) }),
          response: { 200: ValueTrue, ...errorResponses() },
        },
      },
      async (request) => {
        const id = instanceOf(request).id;
        await webhooks.setAll(id, request.body.value);
        if (request.body.notifySentByMe !== undefined) await instances.updateSettings(id, { notifySentByMe: request.body.notifySentByMe });
        return { value: true };
      },
    );

    app.put(
      '/update-notify-sent-by-me',
      {
        schema: {
          tags,
          operationId: 'webhooks_update-notify-sent-by-me',
          summary: 'Also deliver messages sent by this instance to the received webhook',
          body: Type.Object({ notifySentByMe: Type.Boolean() }),
          response: { 200: ValueTrue, ...errorResponses() },
        },
      },
      async (request) => {
        await instances.updateSettings(instanceOf(request).id, { notifySentByMe: request.body.notifySentByMe });
        return { value: true };
      },
    );

    app.get(
      '/webhooks',
      {
        schema: {
          tags,
          operationId: 'webhooks_list',
          summary: 'The configured webhook URLs',
          response: {
            200: Type.Array(Type.Object({ kind: Type.String(), url: Type.String(), disabledReason: Type.Union([Type.String(), Type.Null()]) })),
            ...errorResponses(),
          },
        },
      },
      async (request) => webhooks.list(instanceOf(request).id),
    );

    app.get(
      '/webhook-secret',
      {
        schema: {
          tags,
          operationId: 'webhooks_secret',
          summary: 'The Standard Webhooks secret (whsec_…) that signs deliveries',
          response: { 200: Type.Object({ value: Type.String(), previous: Type.Union([Type.String(), Type.Null()]) }), ...errorResponses() },
        },
      },
      async (request) => {
        const s = await webhooks.secret(instanceOf(request).id);
        return { value: s.secret, previous: s.previous };
      },
    );

    app.post(
      '/webhook-secret/rotate',
      {
        schema: {
          tags,
          operationId: 'webhooks_secret-rotate',
          summary: 'New signing secret; deliveries carry both signatures until the next rotation',
          response: { 200: Type.Object({ value: Type.String(), previous: Type.String() }), ...errorResponses() },
        },
      },
      async (request) => {
        const s = await webhooks.rotateSecret(instanceOf(request).id);
        return { value: s.secret, previous: s.previous };
      },
    );
  };
}
