// Enqueueing: durable, batched per tick (one commit for many messages), with a fast path of
// inserts only and a checked path that applies the per-instance cap and tells a deleted instance apart.
import { CompiledQuery, type Kysely } from 'kysely';
import type { Database } from './database.js';
import { WriteBatcher } from './write-batcher.js';
import type { DB, NewMessageRow } from './schema.js';

/** Protocol ms an `Idempotency-Key` names its message (docs/contract.md). */
export const IDEMPOTENCY_KEY_MS = 24 * 60 * 60_000;

export type EnqueueOutcome =
  | { ok: true; seq: number }
  | { ok: false; reason: 'queue_full' | 'instance_gone' | 'key_reused' }
  /** The key already names a message queued by the same request: that message's ids, nothing queued. */
  | { ok: false; reason: 'replayed'; zaapId: string; messageId: string };

export interface EnqueueRequest {
  row: NewMessageRow;
  /** Reject when this many messages already wait for the instance (0 = no cap). */
  cap: number;
  /**
   * The client's `Idempotency-Key`: recorded in the message's own transaction, so the key and the
   * message are committed together or not at all. `hash` identifies the request; a key older than
   * `notBefore` (ms) is forgotten.
   */
  idempotency?: { key: string; hash: string; notBefore: number };
}

export /** Every column an enqueue sets, in the order of the prepared insert's parameters. */
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
  'scheduled_at',
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
void everyColumnListed;

/** The enqueue write path of MessagesRepo: a write batcher over the compiled one-row insert. */
export class MessageEnqueuer {
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
  }

  /** Durably queues a message; resolves after the commit that contains it. */
  enqueue(request: EnqueueRequest): Promise<EnqueueOutcome> {
    return this.batcher.submit(request);
  }

  drain(): Promise<void> {
    return this.batcher.drain();
  }

  private async enqueueBatch(items: readonly EnqueueRequest[]): Promise<EnqueueOutcome[]> {
    if (items.every((i) => i.cap === 0 && !i.idempotency)) {
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
      for (const { row, cap, idempotency } of items) {
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
        // A retry is answered before the cap is applied: it queues nothing.
        const previous = idempotency ? await keyed(trx, row.instance_id, idempotency) : null;
        if (previous) {
          decided.push(previous);
          continue;
        }
        if (cap > 0) {
          if (inst.waiting + inst.added >= cap) {
            decided.push({ ok: false, reason: 'queue_full' });
            continue;
          }
        }
        if (idempotency) {
          // Another node's request with the same key may commit first: the insert waits for it,
          // then inserts nothing, and that request's message is the answer.
          const inserted = await trx
            .insertInto('send_idempotency_keys')
            .values({ instance_id: row.instance_id, key: idempotency.key, request_hash: idempotency.hash, zaap_id: row.zaap_id, message_id: row.message_id, created_at: row.created_at })
            .onConflict((oc) => oc.columns(['instance_id', 'key']).doNothing())
            .returning('zaap_id')
            .executeTakeFirst();
          if (!inserted) {
            decided.push((await keyed(trx, row.instance_id, idempotency)) ?? { ok: false, reason: 'key_reused' });
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
}

/** What a key already stored answers: the same request's message, or a refusal of another request; null when it is free. */
async function keyed(trx: Kysely<DB>, instanceId: string, idempotency: NonNullable<EnqueueRequest['idempotency']>): Promise<EnqueueOutcome | null> {
  // A key past its 24 hours names nothing any more.
  await trx.deleteFrom('send_idempotency_keys').where('instance_id', '=', instanceId).where('key', '=', idempotency.key).where('created_at', '<', idempotency.notBefore).execute();
  const r = await trx
    .selectFrom('send_idempotency_keys')
    .select(['request_hash', 'zaap_id', 'message_id'])
    .where('instance_id', '=', instanceId)
    .where('key', '=', idempotency.key)
    .executeTakeFirst();
  if (!r) return null;
  return r.request_hash === idempotency.hash ? { ok: false, reason: 'replayed', zaapId: r.zaap_id, messageId: r.message_id } : { ok: false, reason: 'key_reused' };
}

/** Messages still to send (queued or in flight) for one instance. */
export async function countWaiting(db: Kysely<DB>, instanceId: string): Promise<number> {
  const r = await db
    .selectFrom('messages')
    .select((eb) => eb.fn.countAll<number>().as('n'))
    .where('instance_id', '=', instanceId)
    .where('state', 'in', ['queued', 'in_flight'])
    .executeTakeFirstOrThrow();
  return Number(r.n);
}
