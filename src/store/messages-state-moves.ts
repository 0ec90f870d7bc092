// The queue's state moves, committed per tick in one transaction (one fsync for many lanes): the
// sender's claim/settle transitions and the receipts' status advances share it, applied in arrival
// order, so a lane's claim and another message's receipt arriving together cost one commit.
import type { Kysely, Transaction } from 'kysely';
import { MESSAGE_STATUSES, type MessageStatus } from '../events/vocabulary.js';
import { apply } from './chats-writes.js';
import type { DB, MessageState, WaMessageRow } from './schema.js';
import { putWaMessage } from './wa-messages-repo.js';

export interface StatusAdvance {
  instanceId: string;
  messageIds: readonly string[];
  status: MessageStatus;
  at: number;
  /**
   * Also set this status on the messages' chat copy (chat_messages), in the same transaction:
   * the copy's own commit was one more fsync per receipt (docs/benchmarks.md, "Messages at line rate").
   */
  chatCopy?: boolean;
}

/**
 * One queued write of the batch: a sender transition, a status advance, or the remembered copy of
 * a message just sent (wa_messages), which commits with its ack's status advance.
 */
export type QueueMove = { transition: SenderTransition } | { advance: StatusAdvance } | { remember: WaMessageRow };
export type QueueMoveResult = boolean | { message_id: string; phone: string }[] | undefined;

/** Applies one tick's moves in arrival order, in one transaction. */
export function applyQueueMoves(db: Kysely<DB>, items: readonly QueueMove[]): Promise<QueueMoveResult[]> {
  return db.transaction().execute(async (trx) => {
    // A remembered row of an instance deleted meanwhile is dropped (its foreign key would fail the batch).
    const rows = items.flatMap((m) => ('remember' in m ? [m.remember] : []));
    const ids = [...new Set(rows.map((r) => r.instance_id))];
    const alive = ids.length === 0 ? new Set<string>() : new Set((await trx.selectFrom('instances').select('id').where('id', 'in', ids).execute()).map((r) => r.id));
    const out: QueueMoveResult[] = [];
    for (const m of items) {
      if ('transition' in m) out.push(await applyTransition(trx, m.transition));
      else if ('advance' in m) out.push(await applyStatusAdvance(trx, m.advance));
      else {
        if (alive.has(m.remember.instance_id)) await putWaMessage(trx, m.remember);
        out.push(undefined);
      }
    }
    return out;
  });
}

/** One state move of the sender (claim, sent, failed, requeue, retry later). */
export interface SenderTransition {
  seq: number;
  to: MessageState;
  at: number;
  error: string | null;
  /** failed, or queued for a retry: the machine-readable code of the failure. */
  errorCode?: string | null;
  /** queued for a retry: not tried again before this time (ms). */
  nextAttemptAt?: number | null;
  /** queued: the attempt did not count (the link was down, not the message's fault). */
  refund?: boolean;
}

/** Moves the messages' network status forward (never back); the messages that actually moved. */
async function applyStatusAdvance(trx: Transaction<DB>, { instanceId, messageIds, status, at, chatCopy }: StatusAdvance): Promise<{ message_id: string; phone: string }[]> {
  const lower = MESSAGE_STATUSES.slice(0, MESSAGE_STATUSES.indexOf(status));
  const moved = await trx
    .updateTable('messages')
    .set({ wa_status: status, updated_at: at })
    .where('instance_id', '=', instanceId)
    .where('message_id', 'in', [...messageIds])
    .where((eb) => (lower.length > 0 ? eb.or([eb('wa_status', 'is', null), eb('wa_status', 'in', lower)]) : eb('wa_status', 'is', null)))
    .returning(['message_id', 'phone'])
    .execute();
  if (chatCopy) await apply(trx, { kind: 'status', instanceId, ids: messageIds, status });
  return moved;
}

/** Applies one sender transition; false when the row was not in the expected state. */
async function applyTransition(trx: Transaction<DB>, t: SenderTransition): Promise<boolean> {
  let q = trx.updateTable('messages').set({ state: t.to, updated_at: t.at }).where('seq', '=', t.seq);
  if (t.to === 'in_flight') {
    // A scheduled message is claimed only once its time has come, whichever node claims it.
    q = q
      .set((eb) => ({ attempts: eb('attempts', '+', 1) }))
      .where('state', 'in', ['queued', 'in_flight'])
      .where((eb) => eb.or([eb('scheduled_at', 'is', null), eb('scheduled_at', '<=', t.at)]));
  } else {
    q = q.where('state', '=', 'in_flight');
    if (t.to === 'sent') q = q.set({ sent_at: t.at, error: null, error_code: null, next_attempt_at: null });
    if (t.to === 'failed') q = q.set({ error: t.error, error_code: t.errorCode ?? null, next_attempt_at: null });
    if (t.to === 'queued' && t.refund) q = q.set((eb) => ({ attempts: eb('attempts', '-', 1) }));
    if (t.to === 'queued' && t.nextAttemptAt != null) {
      q = q.set({ next_attempt_at: t.nextAttemptAt, error: t.error, error_code: t.errorCode ?? null });
    }
  }
  const r = await q.executeTakeFirst();
  return Number(r.numUpdatedRows) > 0;
}
