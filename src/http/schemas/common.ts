// Schemas shared by several routes. Each route's schema drives both validation and /openapi.json.
import { Type, type TSchema } from '@sinclair/typebox';

export const ErrorBody = Type.Object(
  { error: Type.String(), message: Type.Optional(Type.String()) },
  { $id: 'ErrorBody', description: 'Every error: `error` always, `message` when there is more to say.' },
);

export const ValueTrue = Type.Object({ value: Type.Boolean() });

export const InstanceParams = Type.Object({
  instanceId: Type.String({ minLength: 1, maxLength: 100 }),
  instanceToken: Type.String({ minLength: 1, maxLength: 200 }),
});

export const Phone = Type.String({
  minLength: 1,
  maxLength: 64,
  description: 'Number with country code (digits; `+`, spaces, `-`, `(`, `)` are stripped), `<digits>-group`, or `<digits>@lid`.',
});

/** Optional fields every send operation accepts (CONTRACT §6). */
export const SendCommonFields = {
  phone: Phone,
  delayMessage: Type.Optional(Type.Integer({ minimum: 1, maximum: 15, description: 'Seconds to wait before sending (default: random 1–3 s gap).' })),
  delayTyping: Type.Optional(Type.Integer({ minimum: 1, maximum: 15, description: 'Seconds of "typing…" shown before sending.' })),
  messageId: Type.Optional(Type.String({ minLength: 1, maxLength: 128, description: 'Reply to this message.' })),
  mentioned: Type.Optional(Type.Array(Type.String({ minLength: 1, maxLength: 32 }), { maxItems: 1024 })),
  mentionAll: Type.Optional(Type.Boolean({ description: 'Mention every participant (groups only).' })),
};

export const SendResult = Type.Object({
  zaapId: Type.String({ description: 'Queue id.' }),
  messageId: Type.String({ description: 'The WhatsApp id the message carries.' }),
  id: Type.String({ description: 'Same as messageId.' }),
});

/** Standard error responses for instance-scoped routes, for the OpenAPI document. */
export function errorResponses(...statuses: number[]): Record<number, TSchema> {
  const out: Record<number, TSchema> = {};
  for (const s of [400, 401, 404, 429, ...statuses]) out[s] = Type.Ref('ErrorBody');
  return out;
}
