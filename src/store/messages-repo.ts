// The per-instance message queue and the record of sent messages (one table: a message moves
// queued → in_flight → sent | failed, keeping its seq, zaapId and WhatsApp messageId).
// Enqueueing is in `messages-enqueue.ts`, the paged listing and head columns in
// `messages-listing.ts`, and the per-tick state moves (claim/settle, receipts) in `messages-state-moves.ts`.
import { sql, type Kysely } from 'kysely';
import type { MessageStatus } from '../events/vocabulary.js';
import type { Database } from './database.js';
import { MessageEnqueuer, countWaiting, type EnqueueOutcome, type EnqueueRequest } from './messages-enqueue.js';
import { HEAD_COLUMNS, listWaiting, type QueueHead, type QueuePage } from './messages-listing.js';
import { applyQueueMoves, type QueueMove, type QueueMoveResult, type SenderTransition } from './messages-state-moves.js';
import { WriteBatcher } from './write-batcher.js';
import type { DB, MessageRow, MessageState, WaMessageRow } from './schema.js';

export type { ListedMessage, QueueHead, QueuePage } from './messages-listing.js';

/** What is left of a message taken out of the queue unsent: enough to report it cancelled. */
export type CancelledRow = Pick<MessageRow, 'phone' | 'zaap_id' | 'message_id' | 'media_bytes'>;

export class MessagesRepo {
  private readonly enqueuer: MessageEnqueuer;

  constructor(
    private readonly db: Kysely<DB>,
    database: Pick<Database, 'runBatch'>,
  ) {
    this.enqueuer = new MessageEnqueuer(db, database);
  }

  /** Durably queues a message; resolves after the commit that contains it. */
  enqueue(request: EnqueueRequest): Promise<EnqueueOutcome> {
    return this.enqueuer.enqueue(request);
  }

  /** Forgets the `Idempotency-Key`s recorded before `before` (ms); returns how many. */
  async pruneIdempotencyKeys(before: number): Promise<number> {
    const r = await this.db.deleteFrom('send_idempotency_keys').where('created_at', '<', before).executeTakeFirst();
    return Number(r.numDeletedRows);
  }

  async drain(): Promise<void> {
    await this.enqueuer.drain();
    await this.moves.drain();
  }

  countWaiting(instanceId: string): Promise<number> {
    return countWaiting(this.db, instanceId);
  }

  /** A page of waiting messages (or those in `states`), bounded in rows and payload characters (see `messages-listing.ts`). */
  listWaiting(
    instanceId: string,
    pageSize: number,
    pagingState: string | null,
    states: readonly MessageState[] = ['queued', 'in_flight'],
    inlineChars?: number,
    budgetChars = Number.POSITIVE_INFINITY,
  ): Promise<QueuePage> {
    return listWaiting(this.db, instanceId, pageSize, pagingState, states, inlineChars, budgetChars);
  }

  // Outgoing media by reference, and the bytes an account has queued (its quota).
  /** Payloads of the waiting messages that reference stored media (of one account, or of all). */
  async waitingMediaPayloads(accountId?: string): Promise<string[]> {
    let q = this.db.selectFrom('messages').select('payload').where('state', 'in', ['queued', 'in_flight']).where('media_bytes', '>', 0);
    if (accountId !== undefined) {
      q = q.where('instance_id', 'in', (eb) => eb.selectFrom('instances').select('id').where('account_id', '=', accountId));
    }
    return (await q.execute()).map((r) => r.payload);
  }

  /** Characters of the payloads waiting for the account's instances (media files not included). */
  async waitingPayloadChars(accountId: string): Promise<number> {
    const r = await this.db
      .selectFrom('messages')
      .select(sql<number | null>`sum(length(payload))`.as('n'))
      .where('instance_id', 'in', (eb) => eb.selectFrom('instances').select('id').where('account_id', '=', accountId))
      .where('state', 'in', ['queued', 'in_flight'])
      .executeTakeFirst();
    return Number(r?.n ?? 0);
  }

  /** Removes every message that has not started sending; returns how many. */
  /** Removes every queued message of the instance (not those being sent); the rows removed. */
  clearWaiting(instanceId: string): Promise<CancelledRow[]> {
    return this.db
      .deleteFrom('messages')
      .where('instance_id', '=', instanceId)
      .where('state', '=', 'queued')
      .returning(['phone', 'zaap_id', 'message_id', 'media_bytes'])
      .execute();
  }

  /** Removes one queued message; the row, or undefined when it is unknown or already being sent. */
  removeWaiting(instanceId: string, zaapId: string): Promise<CancelledRow | undefined> {
    return this.db
      .deleteFrom('messages')
      .where('instance_id', '=', instanceId)
      .where('zaap_id', '=', zaapId)
      .where('state', '=', 'queued')
      .returning(['phone', 'zaap_id', 'message_id', 'media_bytes'])
      .executeTakeFirst();
  }

  /**
   * Takes a message out of the queue by its WhatsApp id if no lane has claimed it yet; the removed
   * row, or undefined when it is not waiting. One statement: a lane's claim (queued → in_flight)
   * and this either see the row queued or not at all, so a cancelled message is never sent.
   */
  cancelWaiting(instanceId: string, messageId: string): Promise<CancelledRow | undefined> {
    return this.db
      .deleteFrom('messages')
      .where('instance_id', '=', instanceId)
      .where('message_id', '=', messageId)
      .where('state', '=', 'queued')
      .returning(['phone', 'zaap_id', 'message_id', 'media_bytes'])
      .executeTakeFirst();
  }

  /** The queue state of a message by its WhatsApp id; undefined when the queue never had it (or forgot it). */
  async stateOf(instanceId: string, messageId: string): Promise<MessageState | undefined> {
    const row = await this.db.selectFrom('messages').select('state').where('instance_id', '=', instanceId).where('message_id', '=', messageId).executeTakeFirst();
    return row?.state;
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
  advanceWaStatus(
    instanceId: string,
    messageIds: readonly string[],
    status: MessageStatus,
    at: number,
    options: { chatCopy?: boolean } = {},
  ): Promise<{ message_id: string; phone: string }[]> {
    if (messageIds.length === 0) return Promise.resolve([]);
    return this.moves.submit({ advance: { instanceId, messageIds, status, at, chatCopy: options.chatCopy ?? false } }) as Promise<{ message_id: string; phone: string }[]>;
  }

  /**
   * Receipts arrive one message at a time from every instance, and the lanes claim and settle one
   * message at a time: each move on its own was a commit (an fsync) of its own. Those of one tick
   * share one transaction, applied in arrival order (bench/e2e-send).
   */
  private readonly moves = new WriteBatcher<QueueMove, QueueMoveResult>((items) => applyQueueMoves(this.db, items));

  /** Stores a remembered message (wa_messages) in the next batch of moves (MessageMemory.hold). */
  async remember(row: WaMessageRow): Promise<void> {
    await this.moves.submit({ remember: row });
  }

  private transition(t: SenderTransition): Promise<boolean> {
    return this.moves.submit({ transition: t }) as Promise<boolean>;
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

  // The sender: claiming and settling queued messages.
  // Each instance has exactly one sender lane, so these moves never race each other; the only
  // concurrent writer is the queue API deleting `queued` rows, which the guarded updates tolerate.

  /**
   * The message the instance must send next: the lowest seq still queued or in flight. After a
   * crash that is the in-flight one, which is sent again with the same messageId.
   */
  nextToSend(instanceId: string): Promise<MessageRow | undefined> {
    return this.db
      .selectFrom('messages')
      .selectAll()
      .where('instance_id', '=', instanceId)
      .where('state', 'in', ['queued', 'in_flight'])
      .orderBy('seq')
      .limit(1)
      .executeTakeFirst();
  }

  /**
   * nextToSend with the payload only when it is at most `inlineChars` long (null otherwise), and
   * its length: a lane reads a large payload (a data URI) only when it is about to send it.
   * A scheduled message is the head only once its time (`scheduled_at`) has come at `now`: until
   * then it holds up nothing behind it (docs/contract.md §12). `settling`: a message the lane has
   * sent whose move to `sent` is not committed yet (it commits with the next claim): not the head.
   */
  async nextHead(instanceId: string, inlineChars: number, now = Number.MAX_SAFE_INTEGER, settling?: number): Promise<QueueHead | undefined> {
    // Two lookups, the older wins: the unscheduled head and the oldest due scheduled one. One
    // query with `scheduled_at is null or scheduled_at <= now` cannot use a range of the
    // (instance_id, state, scheduled_at) index and walks every waiting row of the instance: with
    // 100,000 scheduled a day ahead that was ~18 ms per head read, paid by every send of the number
    // (bench/scheduled.ts, docs/benchmarks.md). Each lookup here is a range of that index: the rows
    // scheduled for later are never read.
    const head = (scheduled: boolean) => {
      let q = this.db
        .selectFrom('messages')
        .select([
          ...HEAD_COLUMNS,
          sql<number>`length(payload)`.as('payload_chars'),
          sql<string | null>`case when length(payload) <= ${inlineChars} then payload else null end`.as('payload'),
        ])
        .where('instance_id', '=', instanceId)
        .where('state', 'in', ['queued', 'in_flight'])
        .where((eb) => (scheduled ? eb('scheduled_at', '<=', now) : eb('scheduled_at', 'is', null)));
      if (settling !== undefined) q = q.where('seq', '<>', settling);
      return q.orderBy('seq').limit(1).executeTakeFirst();
    };
    const plain = await head(false);
    const due = await head(true);
    const row = plain && due ? (Number(plain.seq) < Number(due.seq) ? plain : due) : (plain ?? due);
    return row && { ...row, payload_chars: Number(row.payload_chars) };
  }

  /** The earliest time after `now` at which a scheduled message of the instance falls due; null when none waits. */
  async nextScheduledAt(instanceId: string, now: number): Promise<number | null> {
    const r = await this.db
      .selectFrom('messages')
      .select((eb) => eb.fn.min('scheduled_at').as('at'))
      .where('instance_id', '=', instanceId)
      .where('state', '=', 'queued')
      .where('scheduled_at', '>', now)
      .executeTakeFirst();
    return r?.at == null ? null : Number(r.at);
  }

  /** The payload of one message (the sender's deferred read of a large one). */
  async payloadOf(seq: number): Promise<string | undefined> {
    const row = await this.db.selectFrom('messages').select('payload').where('seq', '=', seq).executeTakeFirst();
    return row?.payload;
  }

  /**
   * For /metrics: messages still to send (queued or in flight), across every instance. Sent
   * messages stay in the table, so the count goes instance by instance through the queue index
   * (instance_id, state) and reads the waiting rows only, not the whole history at every scrape.
   */
  async countAllWaiting(): Promise<number> {
    const r = await this.db
      .selectFrom('messages')
      .select((eb) => eb.fn.countAll<number>().as('n'))
      .where('instance_id', 'in', (eb) => eb.selectFrom('instances').select('id'))
      .where('state', 'in', ['queued', 'in_flight'])
      .executeTakeFirstOrThrow();
    return Number(r.n);
  }

  /** Instances with messages still to send: the sender starts a lane for each. */
  async instancesWithWaiting(): Promise<string[]> {
    const rows = await this.db
      .selectFrom('messages')
      .select('instance_id')
      .distinct()
      .where('state', 'in', ['queued', 'in_flight'])
      .execute();
    return rows.map((r) => r.instance_id);
  }

  /**
   * queued → in_flight, committed before the message goes to the engine. An in-flight row is
   * claimed again as is (a resend after a crash). False when the message was removed meanwhile.
   */
  claim(seq: number, at: number): Promise<boolean> {
    return this.transition({ seq, to: 'in_flight', at, error: null });
  }

  /** in_flight → sent. */
  markSent(seq: number, at: number): Promise<boolean> {
    return this.transition({ seq, to: 'sent', at, error: null });
  }

  /** in_flight → failed, with the reason (and its code) reported in the DeliveryCallback. */
  markFailed(seq: number, error: string, at: number, errorCode: string | null = null): Promise<boolean> {
    return this.transition({ seq, to: 'failed', at, error, errorCode });
  }

  /**
   * in_flight → queued (the network was not reachable); it keeps its seq, so it stays first. The
   * attempt the claim counted is given back: a link that is down is not the message's fault.
   */
  requeue(seq: number, at: number): Promise<boolean> {
    return this.transition({ seq, to: 'queued', at, error: null, refund: true });
  }

  /**
   * in_flight → queued after a failure that may pass: the attempt stays counted, and the message
   * is not tried again before `nextAttemptAt`. Both survive a restart (the retry budget).
   */
  retryLater(seq: number, at: number, nextAttemptAt: number, error: string, errorCode: string | null): Promise<boolean> {
    return this.transition({ seq, to: 'queued', at, error, errorCode, nextAttemptAt });
  }
}
