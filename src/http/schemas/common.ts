// Schemas shared by several routes. Each route's schema drives both validation and /openapi.json.
import { Type, type Static, type TSchema, type TUnsafe } from '@sinclair/typebox';
import { ERROR_CODES } from '../../errors.js';

const namedSchemas = new Map<string, TSchema>();

/**
 * A response schema with a name. The server registers every named schema once (`app.addSchema`)
 * and routes answer with a `$ref` to it, so /docs lists the model by name and shows its
 * description instead of "Default Response". Serialization is unchanged: the `$ref` resolves to
 * the very same schema. Call it at module level, so the schema exists before the server is built.
 */
export function named<T extends TSchema>(id: string, description: string, schema: T): TUnsafe<Static<T>> {
  const existing = namedSchemas.get(id);
  if (existing && existing !== schema) throw new Error(`two schemas named ${id}`);
  namedSchemas.set(id, Object.assign(schema, { $id: id, description }));
  return Type.Unsafe<Static<T>>(Type.Ref(id));
}

/** Every schema given a name by `named`, for the server to register. */
export function allNamedSchemas(): TSchema[] {
  return [...namedSchemas.values()];
}

export const ErrorBody = Type.Object(
  {
    error: Type.String(),
    message: Type.Optional(Type.String()),
    code: Type.Union(
      ERROR_CODES.map((c) => Type.Literal(c)),
      { description: 'zapgate: what went wrong, stable and finer than `error` (which keeps Z-API\'s wording, shared by several causes): branch on this. Each code, its status and meaning: docs/errors.md.' },
    ),
  },
  { $id: 'ErrorBody', description: 'Every error: `error` always, `message` when there is more to say, `code` always.' },
);

export const ValueTrue = named('ValueTrue', 'The change was made (`value` is `true`).', Type.Object({ value: Type.Boolean() }, { examples: [{ value: true }] }));

export { EXAMPLE_IMAGE } from './examples.js';


export const Phone = Type.String({
  minLength: 1,
  maxLength: 64,
  description: 'Number with country code (digits; `+`, spaces, `-`, `(`, `)` are stripped), `<digits>-group`, `<digits>@lid`, or a channel `<digits>@newsletter`.',
});

/** When a send leaves (docs/contract.md §12): every send operation accepts it. */
export const ScheduledAt = Type.Optional(
  Type.Union([Type.String({ minLength: 1, maxLength: 40 }), Type.Integer({ minimum: 0 })], {
    description:
      'zapgate: send at this time instead of now: ISO 8601 with an offset (`2025-01-31T09:00:00-03:00`) or epoch milliseconds. Accepted and queued at once (same answer); it leaves at that time, across restarts, and meanwhile holds up no message queued behind it. Listed in the queue with `scheduledAt`, cancelled like any queued message. More than 5 s in the past, or more than a year ahead → 400.',
    examples: ['2025-01-31T09:00:00-03:00'],
  }),
);

/** Optional fields every send operation accepts (docs/contract.md §6). */
export const SendCommonFields = {
  phone: Phone,
  delayMessage: Type.Optional(Type.Integer({ minimum: 1, maximum: 15, description: 'Seconds to wait before sending (default: random 1–3 s gap).' })),
  delayTyping: Type.Optional(Type.Integer({ minimum: 1, maximum: 15, description: 'Seconds of "typing…" shown before sending.' })),
  messageId: Type.Optional(Type.String({ minLength: 1, maxLength: 128, description: 'Reply to this message.' })),
  mentioned: Type.Optional(Type.Array(Type.String({ minLength: 1, maxLength: 32 }), { maxItems: 1024 })),
  mentionAll: Type.Optional(Type.Boolean({ description: 'Mention every participant (groups only).' })),
  scheduledAt: ScheduledAt,
};

export const SendResult = named(
  'SendResult',
  'The message is queued on disk; it is sent in order and reported by a DeliveryCallback (and MessageStatusCallbacks).',
  Type.Object(
    {
      zaapId: Type.String({ description: 'Queue id.' }),
      messageId: Type.String({ description: 'The WhatsApp id the message carries.' }),
      id: Type.String({ description: 'Same as messageId.' }),
    },
    { examples: [{ zaapId: '01JDX3N8W4M9Q2R7T5V6Y8Z0AB', messageId: '3EB0A7C2F5D1E8B94C6A', id: '3EB0A7C2F5D1E8B94C6A' }] },
  ),
);

/** What each error status means here (README "Errors"), shown in /docs beside the status. */
const ERROR_MEANINGS: Readonly<Record<number, string>> = {
  400: 'Invalid input: `message` names the field. Nothing changed.',
  401: '`Invalid Client-Token` or `Invalid instanceToken`.',
  403: 'Forbidden: an API key without the route\'s scope (`x-zapgate-scope`), outside its address ranges or its instances; the instance limit is reached, a media link is wrong or expired, or a WhatsApp Business endpoint is called on a personal WhatsApp account (`WhatsApp Business account required`).',
  404: '`Instance not found` (also for another account\'s instance), or the thing the path names does not exist.',
  409: '`Instance not connected` (pair it, or wait for it to reconnect), or the state does not allow it.',
  413: 'The body is larger than the limit (`ZAPGATE_BODY_LIMIT`, or `ZAPGATE_MEDIA_BODY_LIMIT` for media).',
  415: 'The body is not `application/json`.',
  422: 'WhatsApp refused: `message` says why.',
  429: 'Too many requests, a full queue or the account\'s queued bytes: retry after `Retry-After` seconds.',
  502: 'The media cannot be had from WhatsApp right now: retry after `Retry-After` seconds.',
  504: 'The session did not answer within `ZAPGATE_COMMAND_TIMEOUT_MS`.',
  507: 'The disk is full: nothing of the request was stored.',
};

/** Standard error responses for instance-scoped routes, for the OpenAPI document. */
export function errorResponses(...statuses: number[]): Record<number, TSchema> {
  const out: Record<number, TSchema> = {};
  // 403: any route refuses an API key without its scope, outside its ranges or its instances.
  for (const s of new Set([400, 401, 403, 404, 429, ...statuses])) {
    const meaning = ERROR_MEANINGS[s];
    out[s] = meaning ? Type.Ref('ErrorBody', { description: meaning }) : Type.Ref('ErrorBody');
  }
  return out;
}

/** OpenAPI security of Z-API's partner routes: the account's token as Client-Token or as a bearer Partner-Token. */
export const PARTNER_SECURITY: { [scheme: string]: string[] }[] = [{ ClientToken: [] }, { PartnerToken: [] }, { ApiKey: [] }];
