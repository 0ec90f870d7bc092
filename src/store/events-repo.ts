// The outbox: domain events committed before any webhook delivery is attempted.
import type { Kysely } from 'kysely';
import type { DB, EventRow } from './schema.js';

interface NewEvent {
  id: string;
  instanceId: string;
  kind: string;
  payload: unknown;
  createdAt: number;
}

export class EventsRepo {
  constructor(private readonly db: Kysely<DB>) {}

  async append(events: readonly NewEvent[]): Promise<void> {
    if (events.length === 0) return;
    await this.db
      .insertInto('events')
      .values(
        events.map((e) => ({
          id: e.id,
          instance_id: e.instanceId,
          kind: e.kind,
          payload: JSON.stringify(e.payload),
          created_at: e.createdAt,
        })),
      )
      .execute();
  }

  listForInstance(instanceId: string, afterSeq = 0, limit = 100): Promise<EventRow[]> {
    return this.db
      .selectFrom('events')
      .selectAll()
      .where('instance_id', '=', instanceId)
      .where('seq', '>', afterSeq)
      .orderBy('seq')
      .limit(limit)
      .execute();
  }
}

/** An outbox event as the event stream reads it: its commit order, id, type and webhook body. */
export interface StreamEvent {
  seq: number;
  id: string;
  kind: string;
  payload: string;
}

/**
 * Reads for the event stream (src/services/event-stream.ts). `seq` is the commit order: the outbox
 * commits one batch at a time (write-batcher.ts), so a reader that saw seq N never later finds an
 * event below N appear.
 */
export class StreamEventsRepo {
  constructor(private readonly db: Kysely<DB>) {}

  /** The newest event's seq (0 when there is none): where a stream without Last-Event-ID starts. */
  async lastSeq(): Promise<number> {
    const row = await this.db.selectFrom('events').select((eb) => eb.fn.max<number>('seq').as('last')).executeTakeFirst();
    return row?.last === null || row?.last === undefined ? 0 : Number(row.last);
  }

  /**
   * Where to resume after the event `id`: its own seq, or when it is gone (swept) the seq just before
   * the first event with a later id (ids start with their millisecond, so the unique index orders them
   * by time); null when no later event is stored either.
   */
  async resumeAfter(id: string): Promise<number | null> {
    const own = await this.db.selectFrom('events').select('seq').where('id', '=', id).executeTakeFirst();
    if (own !== undefined) return Number(own.seq);
    const later = await this.db.selectFrom('events').select('seq').where('id', '>', id).orderBy('id').limit(1).executeTakeFirst();
    return later === undefined ? null : Number(later.seq) - 1;
  }

  async forInstance(instanceId: string, afterSeq: number, limit: number): Promise<StreamEvent[]> {
    const rows = await this.db
      .selectFrom('events')
      .select(['seq', 'id', 'kind', 'payload'])
      .where('instance_id', '=', instanceId)
      .where('seq', '>', afterSeq)
      .orderBy('seq')
      .limit(limit)
      .execute();
    return rows.map((r) => ({ seq: Number(r.seq), id: r.id, kind: r.kind, payload: r.payload }));
  }

  async forAccount(accountId: string, afterSeq: number, limit: number): Promise<StreamEvent[]> {
    const rows = await this.db
      .selectFrom('events as e')
      .innerJoin('instances as i', 'i.id', 'e.instance_id')
      .select(['e.seq', 'e.id', 'e.kind', 'e.payload'])
      .where('i.account_id', '=', accountId)
      .where('e.seq', '>', afterSeq)
      .orderBy('e.seq')
      .limit(limit)
      .execute();
    return rows.map((r) => ({ seq: Number(r.seq), id: r.id, kind: r.kind, payload: r.payload }));
  }

  /**
   * Deletes up to `limit` events older than `before` that no webhook delivery references (kept only
   * for the stream); returns how many, oldest first. The outbox's ids start with `msg_` and their
   * millisecond in 12 hex digits (sink.ts), so the id's unique index bounds the scan to old rows
   * instead of reading the whole table for `created_at`.
   */
  async sweepUndelivered(before: number, limit: number): Promise<number> {
    const bound = `msg_${Math.max(0, Math.floor(before)).toString(16).padStart(12, '0')}`;
    const rows = await this.db
      .selectFrom('events')
      .select('seq')
      .where('id', '<', bound)
      .where('created_at', '<', before)
      .where((eb) => eb.not(eb.exists(eb.selectFrom('webhook_deliveries as d').select('d.seq').whereRef('d.event_id', '=', 'events.id'))))
      .orderBy('id')
      .limit(limit)
      .execute();
    if (rows.length === 0) return 0;
    await this.db.deleteFrom('events').where('seq', 'in', rows.map((r) => Number(r.seq))).execute();
    return rows.length;
  }
}
