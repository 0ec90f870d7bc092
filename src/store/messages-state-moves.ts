// The queue's state moves, committed per tick in one transaction each (one fsync for many lanes):
// the sender's claim/settle transitions and the receipts' status advances, applied in arrival order.
import type { Kysely } from 'kysely';
import { MESSAGE_STATUSES, type MessageStatus } from '../events/vocabulary.js';
import type { DB, MessageState } from './schema.js';

export interface StatusAdvance {
  instanceId: string;
  messageIds: readonly string[];
  status: MessageStatus;
  at: number;
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

/** Applies one tick's status advances; each returns the messages that actually moved. */
export function applyStatusAdvances(db: Kysely<DB>, items: readonly StatusAdvance[]): Promise<{ message_id: string; phone: string }[][]> {
  return db.transaction().execute(async (trx) => {
    const out: { message_id: string; phone: string }[][] = [];
    for (const { instanceId, messageIds, status, at } of items) {
      const lower = MESSAGE_STATUSES.slice(0, MESSAGE_STATUSES.indexOf(status));
      out.push(
        await trx
          .updateTable('messages')
          .set({ wa_status: status, updated_at: at })
          .where('instance_id', '=', instanceId)
          .where('message_id', 'in', [...messageIds])
          .where((eb) => (lower.length > 0 ? eb.or([eb('wa_status', 'is', null), eb('wa_status', 'in', lower)]) : eb('wa_status', 'is', null)))
          .returning(['message_id', 'phone'])
          .execute(),
      );
    }
    return out;
  });
}

/** Applies one tick's sender transitions; each is false when the row was not in the expected state. */
export async function applyTransitions(db: Kysely<DB>, items: readonly SenderTransition[]): Promise<boolean[]> {
  return db.transaction().execute(async (trx) => {
    const out: boolean[] = [];
    for (const t of items) {
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
      out.push(Number(r.numUpdatedRows) > 0);
    }
    return out;
  });
}
