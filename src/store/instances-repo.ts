// Instances and their recorded status history.
import type { Kysely } from 'kysely';
import type { DB, InstancePatch, InstanceRow, NewInstanceRow } from './schema.js';

export interface StatusChange {
  status: string;
  reason: string | null;
  at: number;
}

export class InstancesRepo {
  constructor(private readonly db: Kysely<DB>) {}

  async create(row: NewInstanceRow): Promise<void> {
    await this.db.transaction().execute(async (trx) => {
      await trx.insertInto('instances').values(row).execute();
      await trx
        .insertInto('instance_status_history')
        .values({ instance_id: row.id, status: row.status, reason: row.status_reason ?? null, at: row.status_since })
        .execute();
    });
  }

  findById(id: string): Promise<InstanceRow | undefined> {
    return this.db.selectFrom('instances').selectAll().where('id', '=', id).executeTakeFirst();
  }

  listByAccount(accountId: string): Promise<InstanceRow[]> {
    return this.db.selectFrom('instances').selectAll().where('account_id', '=', accountId).orderBy('created_at').execute();
  }

  /** Instances that hold credentials, i.e. should be reconnected when the gateway starts. */
  listPaired(): Promise<InstanceRow[]> {
    return this.db
      .selectFrom('instances')
      .selectAll()
      .where('paired_at', 'is not', null)
      .where('status', 'not in', ['logged_out', 'banned', 'replaced'])
      .execute();
  }

  async update(id: string, patch: InstancePatch): Promise<boolean> {
    const r = await this.db.updateTable('instances').set(patch).where('id', '=', id).executeTakeFirst();
    return Number(r.numUpdatedRows) > 0;
  }

  /** Records a state change and its reason; both the current state and the history move together. */
  async setStatus(id: string, change: StatusChange, extra: InstancePatch = {}): Promise<void> {
    await this.db.transaction().execute(async (trx) => {
      await trx
        .updateTable('instances')
        .set({ ...extra, status: change.status, status_reason: change.reason, status_since: change.at })
        .where('id', '=', id)
        .execute();
      await trx
        .insertInto('instance_status_history')
        .values({ instance_id: id, status: change.status, reason: change.reason, at: change.at })
        .execute();
    });
  }

  history(id: string, limit = 50): Promise<StatusChange[]> {
    return this.db
      .selectFrom('instance_status_history')
      .select(['status', 'reason', 'at'])
      .where('instance_id', '=', id)
      .orderBy('id', 'desc')
      .limit(limit)
      .execute();
  }

  async delete(id: string): Promise<boolean> {
    const r = await this.db.deleteFrom('instances').where('id', '=', id).executeTakeFirst();
    return Number(r.numDeletedRows) > 0;
  }
}
