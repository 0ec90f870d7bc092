// The outbox: domain events committed before any webhook delivery is attempted.
import type { Kysely } from 'kysely';
import type { DB, EventRow } from './schema.js';

export interface NewEvent {
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
