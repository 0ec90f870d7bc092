// Tag "webhooks": where events go, and the secret that signs them.
import { Type, type FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { InstancesService } from '../../services/instances-service.js';
import type { WebhooksService } from '../../services/webhooks-service.js';
import { WEBHOOK_KINDS, type WebhookKind } from '../../events/types.js';
import { instanceOf } from '../auth.js';
import { WEBHOOK_SETTING_OF } from '../schemas/callbacks.js';
import { errorResponses, named, ValueTrue } from '../schemas/common.js';

const tags = ['webhooks'];
const Url = Type.String({
  maxLength: 2048,
  description: 'Absolute https URL (plain http only with ZAPGATE_WEBHOOK_ALLOW_HTTP=true); "" clears it. Hosts resolving to loopback, link-local, metadata or private ranges are refused unless allow-listed.',
});

// A host that resolves to a public address, so the example passes the address guard when pressed.
const EXAMPLE_URL = 'https://example.com/zapgate/webhook';
const SET_URL_TEXT =
  'The URL is checked when set: https only (plain http with ZAPGATE_WEBHOOK_ALLOW_HTTP=true), and its host must resolve to a public address (loopback and private ranges only when listed in ZAPGATE_ALLOW_HOSTS); otherwise 400 and nothing changes. ' +
  'Deliveries are signed per Standard Webhooks with the instance secret (GET …/webhook-secret) and retried on failure. `""` clears the URL.';
const WebhookList = named(
  'WebhookList',
  'One entry per webhook kind with a URL; `disabledReason` is set when deliveries stopped (e.g. the receiver answered 410).',
  Type.Array(Type.Object({ kind: Type.String(), url: Type.String(), disabledReason: Type.Union([Type.String(), Type.Null()]) }), {
    examples: [[{ kind: 'received', url: EXAMPLE_URL, disabledReason: null }]],
  }),
);
const WebhookSecret = named(
  'WebhookSecret',
  'The current `whsec_…` secret, and the previous one while deliveries still carry both signatures (after a rotation).',
  Type.Object({ value: Type.String(), previous: Type.Union([Type.String(), Type.Null()]) }, { examples: [{ value: 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw', previous: null }] }),
);

/** What each kind's URL receives (one setting route per kind, named by WEBHOOK_SETTING_OF). */
const SINGLE: Record<WebhookKind, string> = {
  received: 'incoming messages and notifications (ReceivedCallback)',
  message_status: 'message status changes (MessageStatusCallback)',
  delivery: 'sent / failed-to-send reports (DeliveryCallback)',
  connected: 'connection events (ConnectedCallback)',
  disconnected: 'disconnection events (DisconnectedCallback)',
  chat_presence: 'contacts\' presence in chats: typing, recording, online (PresenceChatCallback)',
};

export function webhookRoutes(webhooks: WebhooksService, instances: InstancesService): FastifyPluginAsyncTypebox {
  return async (app) => {
    for (const kind of WEBHOOK_KINDS) {
      const path = WEBHOOK_SETTING_OF[kind];
      const what = SINGLE[kind];
      app.put(
        `/${path}`,
        {
          schema: {
            tags,
            'x-zapgate-scope': 'manage',
            operationId: `webhooks_${path}`,
            summary: `Set the webhook URL for ${what}`,
            description: SET_URL_TEXT,
            body: Type.Object({ value: Url }, { examples: [{ value: EXAMPLE_URL }] }),
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
      '/update-webhook-received-delivery',
      {
        schema: {
          tags,
          'x-zapgate-scope': 'manage',
          operationId: 'webhooks_update-webhook-received-delivery',
          summary: 'Set one URL for received messages and sent-message reports (Z-API legacy)',
          description: `Z-API's legacy call: the received webhook with delivery notifications. The URL becomes both the received (ReceivedCallback) and the delivery (DeliveryCallback) webhook, as \`receivedAndDeliveryCallbackUrl\` does at on-demand creation; the other webhooks and \`notifySentByMe\` are unchanged. ${SET_URL_TEXT}`,
          body: Type.Object({ value: Url }, { examples: [{ value: EXAMPLE_URL }] }),
          response: { 200: ValueTrue, ...errorResponses() },
        },
      },
      async (request) => {
        await webhooks.setUrl(instanceOf(request).id, ['received', 'delivery'], request.body.value);
        return { value: true };
      },
    );

    app.put(
      '/update-every-webhooks',
      {
        schema: {
          tags,
          'x-zapgate-scope': 'manage',
          operationId: 'webhooks_update-every-webhooks',
          summary: 'Set every webhook URL at once',
          description: `Every kind (received, message status, delivery, connected, disconnected, chat presence) goes to this one URL; \`notifySentByMe\` as in update-notify-sent-by-me. ${SET_URL_TEXT}`,
          body: Type.Object({ value: Url, notifySentByMe: Type.Optional(Type.Boolean()) }, { examples: [{ value: EXAMPLE_URL, notifySentByMe: false }] }),
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
          'x-zapgate-scope': 'manage',
          operationId: 'webhooks_update-notify-sent-by-me',
          summary: 'Also deliver messages sent by this instance to the received webhook',
          description: '`true`: messages this number sends are reported on the received webhook too, with `fromMe: true`. Default `false`.',
          body: Type.Object({ notifySentByMe: Type.Boolean() }, { examples: [{ notifySentByMe: true }] }),
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
          'x-zapgate-scope': 'manage',
          operationId: 'webhooks_list',
          summary: 'The configured webhook URLs',
          description: 'Kinds without a URL are not listed; their events are neither delivered nor kept.',
          response: {
            200: WebhookList,
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
          'x-zapgate-scope': 'manage',
          operationId: 'webhooks_secret',
          summary: 'The Standard Webhooks secret (whsec_…) that signs deliveries',
          description: 'Verify each delivery with it: `webhook-signature` is `v1,<base64 HMAC-SHA256 of "<webhook-id>.<webhook-timestamp>.<body>">` keyed by the base64 part after `whsec_` (any Standard Webhooks library does this).',
          response: { 200: WebhookSecret, ...errorResponses() },
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
          'x-zapgate-scope': 'manage',
          operationId: 'webhooks_secret-rotate',
          summary: 'New signing secret; deliveries carry both signatures until the next rotation',
          description: 'Deploy the new secret to the receiver at leisure: every delivery is signed with both until the next rotation, so verification with either passes.',
          response: { 200: WebhookSecret, ...errorResponses() },
        },
      },
      async (request) => {
        const s = await webhooks.rotateSecret(instanceOf(request).id);
        return { value: s.secret, previous: s.previous };
      },
    );
  };
}
