// What the gateway keeps of a received message besides its event — the chat copy's writes (the
// message in its chat, the chat's last message and unread count, the sender's push name) and the
// engine's remembered message (wa_messages) — written in the same transaction as the event itself
// (deliveries-repo.ts commit), so one received message costs one commit, not three, and the copy is
// never behind (nor ahead of) the webhook (docs/benchmarks.md, "Messages at line rate").
import type { Transaction } from 'kysely';
import type { ChatWrite } from './chats-roles.js';
import type { DB, WaMessageRow } from './schema.js';
import type { EventSink, GatewayEvent } from '../events/types.js';
import { apply, instanceOf } from './chats-writes.js';
import { putWaMessage } from './wa-messages-repo.js';

export interface MessageCopies {
  readonly chats: readonly ChatWrite[];
  readonly remembered: readonly WaMessageRow[];
}

/** True when there is nothing to write. */
export function noCopies(c: MessageCopies | undefined): boolean {
  return c === undefined || (c.chats.length === 0 && c.remembered.length === 0);
}

/** Both lists of several emits, in emit order. */
export function joinCopies(list: readonly MessageCopies[]): MessageCopies {
  return { chats: list.flatMap((c) => c.chats), remembered: list.flatMap((c) => c.remembered) };
}

/**
 * Applies the copies inside the caller's transaction. Every write is idempotent (a message once, a
 * remembered message replaced), so a redelivered message's copies change nothing. Copies of an
 * instance deleted meanwhile are dropped, as the copy's own batches do.
 */
export async function applyCopies(trx: Transaction<DB>, copies: MessageCopies): Promise<void> {
  if (noCopies(copies)) return;
  const ids = [...new Set([...copies.chats.map(instanceOf), ...copies.remembered.map((r) => r.instance_id)])];
  const alive = new Set((await trx.selectFrom('instances').select('id').where('id', 'in', ids).execute()).map((r) => r.id));
  for (const row of copies.remembered) if (alive.has(row.instance_id)) await putWaMessage(trx, row);
  for (const w of copies.chats) if (alive.has(instanceOf(w))) await apply(trx, w);
}

/** An event sink that also takes the received messages' copies, to commit them with the events. */
export interface EventSinkWithCopies extends EventSink {
  emit(instanceId: string, events: readonly GatewayEvent[], onceKeys?: readonly (string | null)[], copies?: MessageCopies): Promise<void>;
}
