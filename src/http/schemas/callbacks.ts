// The webhook payloads in the OpenAPI document's `webhooks` section: one entry per callback, with
// the URL setting that routes it. The schemas themselves are defined once, in events/schemas.ts
// (re-exported here for the tests that validate real deliveries against them).
import type { TObject } from '@sinclair/typebox';
import { WEBHOOK_KIND_OF, type WebhookKind } from '../../events/types.js';
import {
  ConnectedCallbackSchema,
  DeliveryCallbackSchema,
  DisconnectedCallbackSchema,
  MessageStatusCallbackSchema,
  PresenceChatCallbackSchema,
  ReceivedCallbackSchema,
} from '../../events/schemas.js';

export {
  ConnectedCallbackSchema,
  DeliveryCallbackSchema,
  DisconnectedCallbackSchema,
  MessageStatusCallbackSchema,
  PresenceChatCallbackSchema,
  ReceivedCallbackSchema,
} from '../../events/schemas.js';

/** The route that sets each kind's URL: `PUT {prefix}/<setting>` (routes/webhooks.ts). */
export const WEBHOOK_SETTING_OF = {
  received: 'update-webhook-received',
  message_status: 'update-webhook-message-status',
  delivery: 'update-webhook-delivery',
  connected: 'update-webhook-connected',
  disconnected: 'update-webhook-disconnected',
  chat_presence: 'update-webhook-chat-presence',
} as const satisfies Record<WebhookKind, string>;

const SIGNED =
  'POSTed as JSON, signed per Standard Webhooks: `webhook-id` (stable across retries), `webhook-timestamp`, `webhook-signature` (`v1,<base64 HMAC-SHA256 of "id.timestamp.body">` with the instance\'s `whsec_` secret). Success is a 2xx within 15 s; retries follow the README\'s schedule; in order per URL.';

/** The OpenAPI 3.1 `webhooks` section: one entry per callback, with the URL setting that routes it. */
export function webhooksSection(): Record<string, { post: Record<string, unknown> }> {
  const entry = (type: keyof typeof WEBHOOK_KIND_OF, schema: TObject, example: object) => {
    const setting = WEBHOOK_SETTING_OF[WEBHOOK_KIND_OF[type]];
    return {
      post: {
        summary: `${String(schema.$id)} (${setting})`,
        description: `${String(schema.description)}. Goes to the URL set with \`PUT {prefix}/${setting}\` (or update-every-webhooks). ${SIGNED}`,
        tags: ['webhooks'],
        requestBody: { required: true, content: { 'application/json': { schema, example } } },
        responses: { 200: { description: 'Received (any 2xx)' }, 410: { description: 'Gone: the gateway stops delivering to this URL' } },
      },
    };
  };
  const base = { instanceId: '3C67AB641C8AA0412F6A2242B4E23AC7', connectedPhone: '5511999990000', momment: 1764000000000 };
  return {
    ReceivedCallback: entry('ReceivedCallback', ReceivedCallbackSchema, {
      ...base,
      type: 'ReceivedCallback',
      messageId: '3A4F1C2B9D8E7F6A5B4C',
      phone: '5511988887777',
      fromMe: false,
      status: 'RECEIVED',
      chatName: 'Carla',
      senderName: 'Carla',
      participantPhone: null,
      isGroup: false,
      isNewsletter: false,
      broadcast: false,
      isEdit: false,
      isStatusReply: false,
      waitingMessage: false,
      fromApi: false,
      forwarded: false,
      messageExpirationSeconds: 0,
      chatLid: null,
      senderLid: null,
      participantLid: null,
      senderPhoto: null,
      photo: null,
      image: { imageUrl: 'https://gateway.example.com/media/3C67…?exp=1766592000&sig=…', caption: 'the invoice', mimeType: 'image/jpeg', width: 1280, height: 960, viewOnce: false },
    }),
    MessageStatusCallback: entry('MessageStatusCallback', MessageStatusCallbackSchema, { ...base, type: 'MessageStatusCallback', status: 'READ', ids: ['3EB0C431C26A1916A0B4'], phone: '5511988887777', isGroup: false, phoneDevice: 0 }),
    DeliveryCallback: entry('DeliveryCallback', DeliveryCallbackSchema, { ...base, type: 'DeliveryCallback', phone: '5511988887777', zaapId: 'a3f1…', messageId: '3EB0C431C26A1916A0B4' }),
    ConnectedCallback: entry('ConnectedCallback', ConnectedCallbackSchema, { ...base, type: 'ConnectedCallback', connected: true, phone: '5511999990000', isBusiness: false }),
    DisconnectedCallback: entry('DisconnectedCallback', DisconnectedCallbackSchema, { ...base, type: 'DisconnectedCallback', disconnected: true, error: 'logged out' }),
    PresenceChatCallback: entry('PresenceChatCallback', PresenceChatCallbackSchema, { ...base, type: 'PresenceChatCallback', phone: '5511988887777', status: 'COMPOSING', lastSeen: null }),
  };
}
