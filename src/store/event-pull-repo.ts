// The pull API's queue (docs/contract.md §5b): per instance, the outbox's stored events after the
// last acknowledged one (027-event-filters-pull), read the way the event stream reads them.
import type { Kysely } from 'kysely';
import type { DB } from './schema.js';
import { StreamEventsRepo, type StreamEvent } from './events-repo.js';

export type AckOutcome = 'acked' | 'already' | 'not-next' | 'unknown';

export class EventPullRepo {
  private readonly events: StreamEventsRepo;

  constructor(private readonly db: Kysely<DB>) {
    this.events = new StreamEventsRepo(db);
  }

  private async ackedSeq(instanceId: string): Promise<number | null> {
    const row = await this.db.selectFrom('event_pull_cursors').select('acked_seq').where('instance_id', '=', instanceId).executeTakeFirst();
    return row === undefined ? null : Number(row.acked_seq);
  }

  /** The oldest event of the instance not acknowledged yet, or null. */
  async head(instanceId: string): Promise<StreamEvent | null> {
    const rows = await this.events.forInstance(instanceId, (await this.ackedSeq(instanceId)) ?? 0, 1);
    return rows[0] ?? null;
  }

  /**
   * Acknowledges `id` if it is the head (strict order: nothing else moves). The cursor only moves
   * from the position this read saw, so two consumers acking at once move it once; the loser reads
   * again and finds its event already acknowledged.
   */
  async ack(instanceId: string, id: string, at: number): Promise<AckOutcome> {
    for (let attempt = 0; attempt < 5; attempt++) {
      const event = await this.db.selectFrom('events').select('seq').where('id', '=', id).where('instance_id', '=', instanceId).executeTakeFirst();
      if (event === undefined) return 'unknown';
      const seq = Number(event.seq);
      const acked = await this.ackedSeq(instanceId);
      if (acked !== null && seq <= acked) return 'already';
      const head = await this.events.forInstance(instanceId, acked ?? 0, 1);
      if (head[0]?.id !== id) return 'not-next';
      if (acked === null) {
        const r = await this.db
          .insertInto('event_pull_cursors')
          .values({ instance_id: instanceId, acked_seq: seq, acked_id: id, updated_at: at })
          .onConflict((oc) => oc.column('instance_id').doNothing())
          .executeTakeFirst();
        if (Number(r.numInsertedOrUpdatedRows ?? 0n) > 0) return 'acked';
      } else {
        const r = await this.db
          .updateTable('event_pull_cursors')
          .set({ acked_seq: seq, acked_id: id, updated_at: at })
          .where('instance_id', '=', instanceId)
          .where('acked_seq', '=', acked)
          .executeTakeFirst();
        if (Number(r.numUpdatedRows) > 0) return 'acked';
      }
    }
    return 'already';
  }
}
