// Reading the queue without loading every payload: the head columns (all but the payload) and a
// page of waiting messages bounded in rows and in payload characters.
import { sql, type Kysely } from 'kysely';
import type { DB, MessageRow, MessageState } from './schema.js';

/**
 * The head of an instance's queue without its payload (which may hold a 16 MiB data URI), and the
 * payload's length: the sender reads a large payload only when it is about to send it.
 */
export type QueueHead = Omit<MessageRow, 'payload'> & { payload: string | null; payload_chars: number };

/** Every column but the payload; compiles only while it lists them all. */
export const HEAD_COLUMNS = [
  'seq', 'zaap_id', 'instance_id', 'message_id', 'phone', 'kind', 'delay_message', 'delay_typing', 'state', 'wa_status',
  'error', 'attempts', 'created_at', 'updated_at', 'sent_at', 'next_attempt_at', 'error_code', 'media_bytes', 'scheduled_at',
] as const satisfies readonly Exclude<keyof MessageRow, 'payload'>[];
const everyHeadColumn: Exclude<keyof MessageRow, 'payload' | (typeof HEAD_COLUMNS)[number]> extends never ? true : never = true;
void everyHeadColumn;

/** A listed message: its payload is null when it was too large to list inline. */
export type ListedMessage = Omit<MessageRow, 'payload'> & { payload: string | null };

export interface QueuePage {
  messages: ListedMessage[];
  /** Opaque cursor for the next page, null at the end. */
  pagingState: string | null;
}

/**
 * Queued and in-flight messages (or those in `states`, e.g. the failed ones), oldest first,
 * paged. A page also ends (with a pagingState) once its payloads reach `budgetChars` — it always
 * holds at least one message — so a listing is bounded in bytes as well as rows. With
 * `inlineChars`, a payload longer than that comes back null (read it with payloadOf).
 */
export async function listWaiting(
  db: Kysely<DB>,
  instanceId: string,
  pageSize: number,
  pagingState: string | null,
  states: readonly MessageState[] = ['queued', 'in_flight'],
  inlineChars?: number,
  budgetChars = Number.POSITIVE_INFINITY,
): Promise<QueuePage> {
  const after = pagingState ? Number(Buffer.from(pagingState, 'base64url').toString('utf8')) : 0;
  // The heads and their payloads' lengths first: the payloads are read only for the rows that fit.
  const heads = await db
    .selectFrom('messages')
    .select([...HEAD_COLUMNS, sql<number>`length(payload)`.as('payload_chars')])
    .where('instance_id', '=', instanceId)
    .where('state', 'in', [...states])
    .where('seq', '>', Number.isFinite(after) ? after : 0)
    .orderBy('seq')
    .limit(pageSize + 1)
    .execute();
  const page: typeof heads = [];
  let total = 0;
  for (const h of heads.slice(0, pageSize)) {
    const chars = Number(h.payload_chars);
    if (page.length > 0 && total + chars > budgetChars) break;
    total += chars;
    page.push(h);
  }
  const inline = page.filter((h) => inlineChars === undefined || Number(h.payload_chars) <= inlineChars).map((h) => h.seq);
  const payloads = new Map<number, string>();
  for (let i = 0; i < inline.length; i += 500) {
    const rows = await db.selectFrom('messages').select(['seq', 'payload']).where('seq', 'in', inline.slice(i, i + 500)).execute();
    for (const r of rows) payloads.set(r.seq, r.payload);
  }
  const last = page[page.length - 1];
  return {
    messages: page.map(({ payload_chars: _chars, ...h }) => ({ ...h, payload: payloads.get(h.seq) ?? null })),
    pagingState: heads.length > page.length && last ? Buffer.from(String(last.seq)).toString('base64url') : null,
  };
}
