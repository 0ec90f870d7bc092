// What the send routes share: the fields every send passes on, and the shape checks a body's
// values get before they become content (the service checks what a data URI really holds).
import type { FastifyPluginAsyncTypebox, Static } from '@fastify/type-provider-typebox';
import type { FastifyRequest } from 'fastify';
import type { ActionButton } from '../../../domain/outgoing.js';
import { parsePhone } from '../../../domain/phone.js';
import { errors } from '../../../errors.js';
import type { CatalogService } from '../../../services/catalog-service.js';
import type { MessagesService, SendCommon } from '../../../services/messages-service.js';
import type { ActionButtonSchema } from '../../schemas/message-lists.js';

export type App = Parameters<FastifyPluginAsyncTypebox>[0];

export interface SendRoutesOptions {
  messages: MessagesService;
  /** Orders go through it: only a business account may send them. */
  catalog: Pick<CatalogService, 'sendOrder'>;
  /** Body limit of the routes that carry media (ZAPGATE_MEDIA_BODY_LIMIT). */
  mediaBodyLimit: number;
}

export const tags = ['messages'];

/** The fields of a send body that every send passes on as they are, and the request's Idempotency-Key. */
export function common(body: SendCommon, request: FastifyRequest): SendCommon {
  const { phone, delayMessage, delayTyping, messageId, mentioned, mentionAll, groupMentioned, scheduledAt } = body;
  return { phone, delayMessage, delayTyping, messageId, mentioned, mentionAll, groupMentioned, scheduledAt, ...idempotencyKey(request) };
}

/** For the routes whose `messageId` names the target message, not a message to quote. */
export function delayOnly(b: { phone: string; delayMessage?: number; delayTyping?: number; scheduledAt?: string | number }, request: FastifyRequest): SendCommon {
  return { phone: b.phone, delayMessage: b.delayMessage, delayTyping: b.delayTyping, scheduledAt: b.scheduledAt, ...idempotencyKey(request) };
}

/** Printable ASCII, 1 to 255 characters (a UUID is the usual choice). */
const IDEMPOTENCY_KEY = /^[\x21-\x7e]{1,255}$/;

/** `Idempotency-Key`: a retry with the same key answers the first request's ids (docs/contract.md). */
function idempotencyKey(request: FastifyRequest): { idempotencyKey?: string } {
  const raw = request.headers['idempotency-key'];
  if (raw === undefined) return {};
  if (typeof raw !== 'string' || !IDEMPOTENCY_KEY.test(raw)) throw errors.invalidInput('Idempotency-Key: 1 to 255 printable ASCII characters, no spaces (e.g. a UUID)');
  return { idempotencyKey: raw };
}

/**
 * An https URL or a base64 data URI, for every media field (media sends, previews, headers,
 * cards). A data URI's label may carry parameters (`data:audio/ogg;codecs=opus;base64,…`), as the
 * decoder (convert/data-uri.ts) accepts: the label is ignored anyway, the bytes decide.
 */
export function checkMediaRef(value: string, field: string): string {
  if (/^https?:\/\//i.test(value) || /^data:[a-z]+\/[a-z0-9.+-]+(;[a-z0-9=.+-]+)*;base64,/i.test(value)) return value;
  throw errors.invalidInput(`${field}: must be an https URL or a base64 data URI`);
}

export function checkUrl(value: string, field: string): string {
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    throw errors.invalidInput(`${field}: must be an absolute http(s) URL`);
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:') throw errors.invalidInput(`${field}: must be an absolute http(s) URL`);
  return value;
}

export function assertUnique(values: string[], field: string, key: string): void {
  if (new Set(values).size !== values.length) throw errors.invalidInput(`${field}: every ${key} must be unique`);
}

/** Buttons as sent: ids default to their position, URL and CALL buttons carry a valid target. */
export function actionButtons(raw: readonly Static<typeof ActionButtonSchema>[], field: string): ActionButton[] {
  return raw.map((b, i) => {
    const out: ActionButton = { id: b.id ?? String(i + 1), type: b.type, label: b.label };
    if (b.type === 'URL') {
      if (!b.url) throw errors.invalidInput(`${field}[${i}].url: required for a URL button`);
      out.url = checkUrl(b.url, `${field}[${i}].url`);
    }
    if (b.type === 'CALL') {
      if (!b.phone) throw errors.invalidInput(`${field}[${i}].phone: required for a CALL button`);
      out.phone = parsePhone(b.phone, `${field}[${i}].phone`);
    }
    return out;
  });
}
