// The per-instance message queue and the record of sent messages (one table: a message moves
// queued → in_flight → sent | failed, keeping its seq, zaapId and WhatsApp messageId).
import { CompiledQuery, sql, type Kysely } from 'kysely';
import { MESSAGE_STATUSES, type MessageStatus } from '../events/vocabulary.js';
import type { Database } from './database.js';
import { WriteBatcher } from './write-batcher.js';
import type { DB, MessageRow, MessageState, NewMessageRow } from './schema.js';

/**
 * The head of an instance's queue without its payload (which may hold a 16 MiB data URI), and the
 * payload's length: the sender reads a large payload only when it is about to send it.
 */
export type QueueHead = Omit<MessageRow, 'payload'> & { payload: string | null; payload_chars: number };

/** Every column but the payload; compiles only while it lists them all. */
const HEAD_COLUMNS = [
  'seq', 'zaap_id', 'instance_id', 'message_id', 'phone', 'kind', 'delay_message', 'delay_typing', 'state', 'wa_status',
  'error', 'attempts', 'created_at', 'updated_at', 'sent_at', 'next_attempt_at', 'error_code', 'media_bytes',
] as const satisfies readonly Exclude<keyof MessageRow, 'payload'>[];
const everyHeadColumn: Exclude<keyof MessageRow, 'payload' | (typeof HEAD_COLUMNS)[number]> extends never ? true : never = true;

type EnqueueOutcome = { ok: true; seq: number } | { ok: false; reason: 'queue_full' | 'instance_gone' };

interface EnqueueRequest {
  row: NewMessageRow;
  /** Reject when this many messages already wait for the instance (0 = no cap). */
  cap: number;
}

/** A listed message: its payload is null when it was too large to list inline. */
export type ListedMessage = Omit<MessageRow, 'payload'> & { payload: string | null };

export interface QueuePage {
  messages: ListedMessage[];
  /** Opaque cursor for the next page, null at the end. */
  pagingState: string | null;
}

interface StatusAdvance {
  instanceId: string;
  messageIds: readonly string[];
  status: MessageStatus;
  at: number;
}

/** One state move of the sender (see the Sender section below). */
interface SenderTransition {
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

/** Every column an enqueue sets, in the order of the prepared insert's parameters. */
const ENQUEUE_COLUMNS = [
  'zaap_id',
  'instance_id',
  'message_id',
  'phone',
  'kind',
  'payload',
  'delay_message',
  'delay_typing',
  'state',
  'wa_status',
  'error',
  'created_at',
  'updated_at',
  'sent_at',
  'media_bytes',
] as const satisfies readonly (keyof NewMessageRow)[];

/** A row's values in ENQUEUE_COLUMNS order: the parameters of the compiled one-row insert. */
function insertParameters(row: NewMessageRow): unknown[] {
  return ENQUEUE_COLUMNS.map((c) => row[c] ?? (c === 'media_bytes' ? 0 : null));
}

/** Compiles only while ENQUEUE_COLUMNS lists every column without a default (seq, attempts, the retry columns). */
const everyColumnListed: Exclude<
  keyof NewMessageRow,
  (typeof ENQUEUE_COLUMNS)[number] | 'seq' | 'attempts' | 'next_attempt_at' | 'error_code'
> extends never
  ? true
  : never = true;

export class MessagesRepo {
  private readonly batcher: WriteBatcher<EnqueueRequest, EnqueueOutcome>;
  /**
   * The one-row insert, compiled once: a batch runs it once per row instead of building and
   * compiling a many-row insert each time, which cost more than SQLite's own work (bench/enqueue).
   */
  private readonly insertOne: string;

  constructor(
    private readonly db: Kysely<DB>,
    private readonly database: Pick<Database, 'runBatch'>,
  ) {
    this.batcher = new WriteBatcher((items) => this.enqueueBatch(items));
    const template = Object.fromEntries(ENQUEUE_COLUMNS.map((c) => [c, null])) as unknown as NewMessageRow;
    this.insertOne = db.insertInto('messages').values(template).returning('seq').compile().sql;
    void everyColumnListed;
    void everyHeadColumn;
  }

  /** Durably queues a message; resolves after the commit that contains it. */
  enqueue(request: EnqueueRequest): Promise<EnqueueOutcome> {
    return this.batcher.submit(request);
  }

  async drain(): Promise<void> {
    await this.batcher.drain();
    await this.transitions.drain();
    await this.statusAdvances.drain();
  }

  private async enqueueBatch(items: readonly EnqueueRequest[]): Promise<EnqueueOutcome[]> {
    if (items.every((i) => i.cap === 0)) {
      // Fast path (bench/enqueue): no cap to check, so the batch is only inserts, in one
      // transaction. A deleted instance fails it on the messages → instances foreign key,
      // atomically (nothing is written); any failure then goes through the checked path below,
      // which tells a missing instance apart from a real error and reports it as such.
      const seqs = await this.insertRows(items.map((i) => i.row)).catch(() => null);
      if (seqs) return seqs.map((seq) => ({ ok: true, seq }));
    }
    return this.enqueueChecked(items);
  }

  /** Inserts the rows in one transaction, in order, and returns their seqs. */
  private async insertRows(rows: readonly NewMessageRow[]): Promise<number[]> {
    const returned = await this.database.runBatch<{ seq: number }>(
      this.insertOne,
      rows.map(insertParameters),
    );
    return returned.map((r, i) => {
      const seq = r[0]?.seq;
      if (seq === undefined) throw new Error(`enqueue: the insert returned no seq for ${rows[i]?.zaap_id}`);
      return Number(seq);
    });
  }

  private async enqueueChecked(items: readonly EnqueueRequest[]): Promise<EnqueueOutcome[]> {
    return this.db.transaction().execute(async (trx) => {
      // Decide every item in arrival order, inserting the accepted ones with the same compiled
      // one-row insert as the fast path.
      // Waiting messages are counted, for instances with a capped request in the batch, before
      // this batch inserts any: `added` counts the batch's own.
      const capped = new Set(items.filter((i) => i.cap > 0).map((i) => i.row.instance_id));
      const instances = new Map<string, { exists: boolean; waiting: number; added: number }>();
      const decided: EnqueueOutcome[] = [];
      for (const { row, cap } of items) {
        let inst = instances.get(row.instance_id);
        if (!inst) {
          const exists = await trx.selectFrom('instances').select('id').where('id', '=', row.instance_id).executeTakeFirst();
          const waiting = exists && capped.has(row.instance_id) ? await countWaiting(trx, row.instance_id) : 0;
          inst = { exists: exists !== undefined, waiting, added: 0 };
          instances.set(row.instance_id, inst);
        }
        if (!inst.exists) {
          decided.push({ ok: false, reason: 'instance_gone' });
          continue;
        }
        if (cap > 0) {
          if (inst.waiting + inst.added >= cap) {
            decided.push({ ok: false, reason: 'queue_full' });
            continue;
          }
        }
        inst.added++;
        const { rows } = await trx.executeQuery<{ seq: number }>(CompiledQuery.raw(this.insertOne, insertParameters(row)));
        decided.push({ ok: true, seq: Number(rows[0]?.seq) });
      }
      return decided;
    });
  }

  countWaiting(instanceId: string): Promise<number> {
    return countWaiting(this.db, instanceId);
  }

  /**
   * Queued and in-flight messages (or those in `states`, e.g. the failed ones), oldest first,
   * paged. A page also ends (with a pagingState) once its payloads reach `budgetChars` — it always
   * holds at least one message — so a listing is bounded in bytes as well as rows. With
   * `inlineChars`, a payload longer than that comes back null (read it with payloadOf).
   */
  async listWaiting(
    instanceId: string,
    pageSize: number,
    pagingState: string | null,
    states: readonly MessageState[] = ['queued', 'in_flight'],
    inlineChars?: number,
    budgetChars = Number.POSITIVE_INFINITY,
  ): Promise<QueuePage> {
    const after = pagingState ? Number(Buffer.from(pagingState, 'base64url').toString('utf8')) : 0;
    // The heads and their payloads' lengths first: the payloads are read only for the rows that fit.
    const heads = await this.db
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
      const rows = await this.db.selectFrom('messages').select(['seq', 'payload']).where('seq', 'in', inline.slice(i, i + 500)).execute();
      for (const r of rows) payloads.set(r.seq, r.payload);
    }
    const last = page[page.length - 1];
    return {
      messages: page.map(({ payload_chars: _chars, ...h }) => ({ ...h, payload: payloads.get(h.seq) ?? null })),
      pagingState: heads.length > page.length && last ? Buffer.from(String(last.seq)).toString('base64url') : null,
    };
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
  advanceWaStatus(instanceId: string, messageIds: readonly string[], status: MessageStatus, at: number): Promise<{ message_id: string; phone: string }[]> {
    if (messageIds.length === 0) return Promise.resolve([]);
    return this.statusAdvances.submit({ instanceId, messageIds, status, at });
  }

  /**
   * Receipts arrive one message at a time from every instance; each advance on its own was a
   * commit (an fsync) of its own. Those of one tick share one transaction, applied in arrival
   * order (bench/e2e-send).
   */
  private readonly statusAdvances = new WriteBatcher<StatusAdvance, { message_id: string; phone: string }[]>((items) =>
    this.db.transaction().execute(async (trx) => {
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
    }),
  );

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

  /** State moves of the sender, committed per tick in one transaction (one fsync for many lanes). */
  private readonly transitions = new WriteBatcher<SenderTransition, boolean>((items) => this.applyTransitions(items));

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
   */
  async nextHead(instanceId: string, inlineChars: number): Promise<QueueHead | undefined> {
    const row = await this.db
      .selectFrom('messages')
      .select([
        ...HEAD_COLUMNS,
        sql<number>`length(payload)`.as('payload_chars'),
        sql<string | null>`case when length(payload) <= ${inlineChars} then payload else null end`.as('payload'),
      ])
      .where('instance_id', '=', instanceId)
      .where('state', 'in', ['queued', 'in_flight'])
      .orderBy('seq')
      .limit(1)
      .executeTakeFirst();
    return row && { ...row, payload_chars: Number(row.payload_chars) };
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
    return this.transitions.submit({ seq, to: 'in_flight', at, error: null });
  }

  /** in_flight → sent. */
  markSent(seq: number, at: number): Promise<boolean> {
    return this.transitions.submit({ seq, to: 'sent', at, error: null });
  }

  /** in_flight → failed, with the reason (and its code) reported in the DeliveryCallback. */
  markFailed(seq: number, error: string, at: number, errorCode: string | null = null): Promise<boolean> {
    return this.transitions.submit({ seq, to: 'failed', at, error, errorCode });
  }

  /**
   * in_flight → queued (the network was not reachable); it keeps its seq, so it stays first. The
   * attempt the claim counted is given back: a link that is down is not the message's fault.
   */
  requeue(seq: number, at: number): Promise<boolean> {
    return this.transitions.submit({ seq, to: 'queued', at, error: null, refund: true });
  }

  /**
   * in_flight → queued after a failure that may pass: the attempt stays counted, and the message
   * is not tried again before `nextAttemptAt`. Both survive a restart (the retry budget).
   */
  retryLater(seq: number, at: number, nextAttemptAt: number, error: string, errorCode: string | null): Promise<boolean> {
    return this.transitions.submit({ seq, to: 'queued', at, error, errorCode, nextAttemptAt });
  }

  private async applyTransitions(items: readonly SenderTransition[]): Promise<boolean[]> {
    return this.db.transaction().execute(async (trx) => {
      const out: boolean[] = [];
      for (const t of items) {
        let q = trx.updateTable('messages').set({ state: t.to, updated_at: t.at }).where('seq', '=', t.seq);
        if (t.to === 'in_flight') {
          q = q.set((eb) => ({ attempts: eb('attempts', '+', 1) })).where('state', 'in', ['queued', 'in_flight']);
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
