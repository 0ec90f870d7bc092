// The webhook payloads in the OpenAPI document's `webhooks` section: one entry per callback, with
// the URL setting that routes it. The schemas themselves are defined once, in events/schemas.ts
// (re-exported here for the tests that validate real deliveries against them).
import type { TObject } from '@sinclair/typebox';
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

const SIGNED =
  'POSTed as JSON, signed per Standard Webhooks: `webhook-id` (stable across retries), `webhook-timestamp`, `webhook-signature` (`v1,<base64 HMAC-SHA256 of "id.timestamp.body">` with the instance\'s `whsec_` secret). Success is a 2xx within 15 s; retries follow the README\'s schedule; in order per URL.';

/** The OpenAPI 3.1 `webhooks` section: one entry per callback, with the URL setting that routes it. */
export function webhooksSection(): Record<string, { post: Record<string, unknown> }> {
  const entry = (schema: TObject, setting: string, example: object) => ({
    post: {
      summary: `${String(schema.$id)} (${setting})`,
      description: `${String(schema.description)}. Goes to the URL set with \`PUT {prefix}/${setting}\` (or update-every-webhooks). ${SIGNED}`,
      tags: ['webhooks'],
      requestBody: { required: true, content: { 'application/json': { schema, example } } },
      responses: { 200: { description: 'Received (any 2xx)' }, 410: { description: 'Gone: the gateway stops delivering to this URL' } },
    },
  });
  const base = { instanceId: '3C67AB641C8AA0412F6A2242B4E23AC7', connectedPhone: '5511999990000', momment: 1764000000000 };
  return {
    ReceivedCallback: entry(ReceivedCallbackSchema, 'update-webhook-received', {
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
    MessageStatusCallback: entry(MessageStatusCallbackSchema, 'update-webhook-message-status', { ...base, type: 'MessageStatusCallback', status: 'READ', ids: ['3EB0C431C26A1916A0B4'], phone: '5511988887777', isGroup: false }),
    DeliveryCallback: entry(DeliveryCallbackSchema, 'update-webhook-delivery', { ...base, type: 'DeliveryCallback', phone: '5511988887777', zaapId: 'a3f1…', messageId: '3EB0C431C26A1916A0B4' }),
    ConnectedCallback: entry(ConnectedCallbackSchema, 'update-webhook-connected', { ...base, type: 'ConnectedCallback', connected: true, phone: '5511999990000' }),
    DisconnectedCallback: entry(DisconnectedCallbackSchema, 'update-webhook-disconnected', { ...base, type: 'DisconnectedCallback', disconnected: true, error: 'logged out' }),
    PresenceChatCallback: entry(PresenceChatCallbackSchema, 'update-webhook-chat-presence', { ...base, type: 'PresenceChatCallback', phone: '5511988887777', status: 'COMPOSING', lastSeen: null }),
  };
}
