// 028: number health (docs/contract.md §12). GET …/health and the per-instance metrics read an
// instance's messages of the last (rolling) day: this index finds them without walking the
// instance's whole history. `created_at` never changes after the insert, so the index costs the
// enqueue one more entry and the status updates nothing.
import type { Kysely } from 'kysely';
import type { Migration } from './migration.js';

export const migration028NumberHealth: Migration = {
  name: '028-number-health',
  async up(db: Kysely<unknown>) {
    await db.schema.createIndex('messages_created').on('messages').columns(['instance_id', 'created_at']).execute();
  },
};
