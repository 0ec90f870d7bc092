// What number health (docs/contract.md §12) reads from the store: an instance's messages of the
// window by outcome (the 028 index finds them), and its disconnections with their reasons.
import { sql, type Kysely } from 'kysely';
import { DISCONNECTED_STATUSES, type MessageTally } from '../domain/number-health.js';
import type { DB } from './schema.js';

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

  /** Times the instance lost its connection since `since`, by status and reason. */
  async disconnections(instanceId: string, since: number): Promise<{ status: string; reason: string | null; count: number; last: number }[]> {
    const rows = await this.db
      .selectFrom('instance_status_history')
      .select(['status', 'reason', sql<number>`count(*)`.as('n'), sql<number>`max(at)`.as('last')])
      .where('instance_id', '=', instanceId)
      .where('at', '>=', since)
      .where('status', 'in', [...DISCONNECTED_STATUSES])
      .groupBy(['status', 'reason'])
      .execute();
    return rows.map((r) => ({ status: r.status, reason: r.reason, count: Number(r.n), last: Number(r.last) })).sort((a, b) => b.last - a.last);
  }

  /** Every instance's id (the per-instance metrics). */
  async instanceIds(): Promise<string[]> {
    return (await this.db.selectFrom('instances').select('id').orderBy('id').execute()).map((r) => r.id);
  }
}
