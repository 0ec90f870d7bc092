// Group creations requested through the API: a durable pending id until the network answers.
import type { Kysely } from 'kysely';
import type { DB, PendingGroupRow, PendingGroupStatus } from './schema.js';

export class GroupsRepo {
  constructor(private readonly db: Kysely<DB>) {}

  async create(row: PendingGroupRow): Promise<void> {
    await this.db.insertInto('pending_groups').values(row).execute();
  }

  find(instanceId: string, id: string): Promise<PendingGroupRow | undefined> {
    return this.db
      .selectFrom('pending_groups')
      .selectAll()
      .where('instance_id', '=', instanceId)
      .where('id', '=', id)
      .executeTakeFirst();
  }

  listByStatus(status: PendingGroupStatus): Promise<PendingGroupRow[]> {
    return this.db.selectFrom('pending_groups').selectAll().where('status', '=', status).orderBy('created_at').execute();
  }

  async update(id: string, patch: Partial<Omit<PendingGroupRow, 'id' | 'instance_id'>>): Promise<void> {
    await this.db.updateTable('pending_groups').set(patch).where('id', '=', id).execute();
  }
}
