// The per-instance message queue and the record of sent messages (one table: a message moves
// queued → in_flight → sent | failed, keeping its seq, zaapId and WhatsApp messageId).
import type { Kysely } from 'kysely';
import { WriteBatcher } from './write-batcher.js';
import type { DB, MessageRow, NewMessageRow } from './schema.js';

/** The network's view of a sent message, in the only order it may move. */
export const WA_STATUS_ORDER = ['SENT', 'RECEIVED', 'READ', 'PLAYED'] as const;
export type WaStatus = (typeof WA_STATUS_ORDER)[number];

export type EnqueueOutcome = { ok: true; seq: number } | { ok: false; reason: 'queue_full' | 'instance_gone' };

export interface EnqueueRequest {
  row: NewMessageRow;
  /** Reject when this many messages already wait for the instance (0 = no cap). */
  cap: number;
}

export interface QueuePage {
  messages: MessageRow[];
  /** Opaque cursor for the next page, null at the end. */
  pagingState: string | null;
}

export class MessagesRepo {
  private readonly batcher: WriteBatcher<EnqueueRequest, EnqueueOutcome>;

  constructor(private readonly db: Kysely<DB>) {
    this.batcher = new WriteBatcher((items) => this.enqueueBatch(items));
  }

  /** Durably queues a message; resolves after the commit that contains it. */
  enqueue(request: EnqueueRequest): Promise<EnqueueOutcome> {
    return this.batcher.submit(request);
  }

  drain(): Promise<void> {
    return this.batcher.drain();
  }

  private async enqueueBatch(items: readonly EnqueueRequest[]): Promise<EnqueueOutcome[]> {
    return this.db.transaction().execute(async (trx) => {
      // Decide every item in arrival order first, then insert the accepted rows with one
      // statement: one query to build and run per batch instead of one per message (bench/enqueue).
      const instances = new Map<string, { exists: boolean; waiting: number | undefined; added: number }>();
      const decided: (EnqueueOutcome | NewMessageRow)[] = [];
      const accepted: NewMessageRow[] = [];
      for (const { row, cap } of items) {
        let inst = instances.get(row.instance_id);
        if (!inst) {
          const exists = await trx.selectFrom('instances').select('id').where('id', '=', row.instance_id).executeTakeFirst();
          inst = { exists: exists !== undefined, waiting: undefined, added: 0 };
          instances.set(row.instance_id, inst);
        }
        if (!inst.exists) {
          decided.push({ ok: false, reason: 'instance_gone' });
          continue;
        }
        if (cap > 0) {
          // Counted only when a capped request needs it, but then always: an uncapped request
          // earlier in the batch must not hide the messages already waiting.
          inst.waiting ??= await countWaiting(trx, row.instance_id);
          if (inst.waiting + inst.added >= cap) {
            decided.push({ ok: false, reason: 'queue_full' });
            continue;
          }
        }
        inst.added++;
        accepted.push(row);
        decided.push(row);
      }
      const seqs = new Map<string, number>();
      if (accepted.length > 0) {
        // RETURNING order is unspecified (SQLite), so rows are matched back by zaap_id.
        const inserted = await trx.insertInto('messages').values(accepted).returning(['seq', 'zaap_id']).execute();
        for (const r of inserted) seqs.set(r.zaap_id, Number(r.seq));
      }
      return decided.map((d): EnqueueOutcome => {
        if ('ok' in d) return d;
        const seq = seqs.get(d.zaap_id);
        if (seq === undefined) throw new Error(`enqueue: the insert returned no seq for ${d.zaap_id}`);
        return { ok: true, seq };
      });
    });
  }

  countWaiting(instanceId: string): Promise<number> {
    return countWaiting(this.db, instanceId);
  }

  async listWaiting(instanceId: string, pageSize: number, pagingState: string | null): Promise<QueuePage> {
    const after = pagingState ? Number(Buffer.from(pagingState, 'base64url').toString('utf8')) : 0;
    const rows = await this.db
      .selectFrom('messages')
      .selectAll()
      .where('instance_id', '=', instanceId)
      .where('state', 'in', ['queued', 'in_flight'])
      .where('seq', '>', Number.isFinite(after) ? after : 0)
      .orderBy('seq')
      .limit(pageSize + 1)
      .execute();
    const page = rows.slice(0, pageSize);
    const last = page[page.length - 1];
    return {
      messages: page,
      pagingState: rows.length > pageSize && last ? Buffer.from(String(last.seq)).toString('base64url') : null,
    };
  }

  /** Removes every message that has not started sending; returns how many. */
  async clearWaiting(instanceId: string): Promise<number> {
    const r = await this.db
      .deleteFrom('messages')
      .where('instance_id', '=', instanceId)
      .where('state', '=', 'queued')
      .executeTakeFirst();
    return Number(r.numDeletedRows);
  }

  /** Removes one queued message; false when it is unknown or already being sent. */
  async removeWaiting(instanceId: string, zaapId: string): Promise<boolean> {
    const r = await this.db
      .deleteFrom('messages')
      .where('instance_id', '=', instanceId)
      .where('zaap_id', '=', zaapId)
      .where('state', '=', 'queued')
      .executeTakeFirst();
    return Number(r.numDeletedRows) > 0;
  }

  findByZaapId(instanceId: string, zaapId: string): Promise<MessageRow | undefined> {
    return this.db
      .selectFrom('messages')
      .selectAll()
      .where('instance_id', '=', instanceId)
      .where('zaap_id', '=', zaapId)
      .executeTakeFirst();
  }

  /**
   * Moves the network status of sent messages forward (SENT → RECEIVED → READ → PLAYED), never back.
   * Returns the messages that actually moved (id and queued phone), so each change is reported once.
   */
  async advanceWaStatus(
    instanceId: string,
    messageIds: readonly string[],
    status: WaStatus,
    at: number,
  ): Promise<{ message_id: string; phone: string }[]> {
    const lower = WA_STATUS_ORDER.slice(0, WA_STATUS_ORDER.indexOf(status));
    if (messageIds.length === 0) return [];
    return this.db
      .updateTable('messages')
      .set({ wa_status: status, updated_at: at })
      .where('instance_id', '=', instanceId)
      .where('message_id', 'in', [...messageIds])
      .where((eb) => (lower.length > 0 ? eb.or([eb('wa_status', 'is', null), eb('wa_status', 'in', lower)]) : eb('wa_status', 'is', null)))
      .returning(['message_id', 'phone'])
      .execute();
  }

  /** Records the network's refusal of a message that had already left (a nack after sending). */
  async recordNetworkError(instanceId: string, messageId: string, reason: string, at: number): Promise<boolean> {
    const r = await this.db
      .updateTable('messages')
      .set({ error: reason, updated_at: at })
      .where('instance_id', '=', instanceId)
      .where('message_id', '=', messageId)
      .executeTakeFirst();
    return Number(r.numUpdatedRows) > 0;
  }
  findByMessageId(instanceId: string, messageId: string): Promise<MessageRow | undefined> {
    return this.db
      .selectFrom('messages')
      .selectAll()
      .where('instance_id', '=', instanceId)
      .where('message_id', '=', messageId)
      .executeTakeFirst();
  }
}

async function countWaiting(db: Kysely<DB>, instanceId: string): Promise<number> {
  const r = await db
    .selectFrom('messages')
    .select((eb) => eb.fn.countAll<number>().as('n'))
    .where('instance_id', '=', instanceId)
    .where('state', 'in', ['queued', 'in_flight'])
    .executeTakeFirstOrThrow();
  return Number(r.n);
}
