// What number health (docs/contract.md §12) reads from the store: an instance's messages of the
// window by outcome (the 028 index finds them), and its disconnections with their reasons.
import { sql, type Kysely } from 'kysely';
import { disconnectionsOf, type Disconnections, type MessageTally } from '../domain/number-health.js';
import type { DB } from './schema.js';

/** A day's status changes read at most (a number flapping all day long is counted up to there). */
const MAX_CHANGES = 10_000;

export class HealthRepo {
  constructor(private readonly db: Kysely<DB>) {}

  /** The instance's messages accepted since `since` that were sent or failed, counted by outcome. */
  async messages(instanceId: string, since: number): Promise<MessageTally[]> {
    const rows = await this.db
      .selectFrom('messages')
      .select(['state', 'wa_status', 'error_code', sql<string | null>`max(error)`.as('error'), sql<number>`count(*)`.as('n')])
      .where('instance_id', '=', instanceId)
      .where('created_at', '>=', since)
      .where('state', 'in', ['sent', 'failed'])
      .groupBy(['state', 'wa_status', 'error_code'])
      .execute();
    return rows.map((r) => ({ state: r.state, waStatus: r.wa_status, errorCode: r.error_code, error: r.error, n: Number(r.n) }));
  }

  /**
   * Times the instance lost its connection since `since`, by status and reason (domain's
   * disconnectionsOf reads its status changes in order, with the one before the window).
   */
  async disconnections(instanceId: string, since: number): Promise<Disconnections[]> {
    const [changes, before] = await Promise.all([
      this.db
        .selectFrom('instance_status_history')
        .select(['status', 'reason', 'at'])
        .where('instance_id', '=', instanceId)
        .where('at', '>=', since)
        .orderBy('id')
        .limit(MAX_CHANGES)
        .execute(),
      this.db.selectFrom('instance_status_history').select('status').where('instance_id', '=', instanceId).where('at', '<', since).orderBy('id', 'desc').limit(1).executeTakeFirst(),
    ]);
    return disconnectionsOf(
      changes.map((c) => ({ status: c.status, reason: c.reason, at: Number(c.at) })),
      before?.status ?? null,
    );
  }

  /** Every instance's id (the per-instance metrics). */
  async instanceIds(): Promise<string[]> {
    return (await this.db.selectFrom('instances').select('id').orderBy('id').execute()).map((r) => r.id);
  }
}
