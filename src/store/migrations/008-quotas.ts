// 008 (hardening): media is queued by reference, and account changes reach running servers.
// - messages.media_bytes: the size of the stored files (<data dir>/outgoing-media) a queued message
//   references, 0 for none. A partial index finds the waiting messages that hold media, so the sweep
//   of files no queued message references and the per-account byte quota never scan text messages.
// - account_changes: one row per Client-Token rotation or account deletion (`zapgate accounts …`
//   runs in another process); servers poll it by seq, so a rotated or deleted token is refused and
//   a deleted account's sessions are closed within a poll interval.
import { sql, type ColumnDefinitionBuilder, type Kysely } from 'kysely';
import type { Migration } from './migration.js';

export const migration008Quotas: Migration = {
  name: '008-quotas',
  async up(db: Kysely<unknown>, caps) {
    await db.schema.alterTable('messages').addColumn('media_bytes', 'bigint', (c) => c.notNull().defaultTo(0)).execute();
    await db.schema.createIndex('messages_media').on('messages').columns(['state', 'instance_id']).where(sql<boolean>`media_bytes > 0`).execute();

    const serial = caps.autoIncrementType;
    const pk = (c: ColumnDefinitionBuilder) => (serial === 'integer' ? c.primaryKey().autoIncrement() : c.primaryKey());
    await db.schema
      .createTable('account_changes')
      .addColumn('seq', serial, pk)
      .addColumn('account_id', 'text', (c) => c.notNull())
      // 'rotate' | 'delete'
      .addColumn('kind', 'text', (c) => c.notNull())
      // delete: the account's instance ids (JSON array), whose rows are gone with the account.
      .addColumn('instance_ids', 'text')
      .addColumn('at', 'bigint', (c) => c.notNull())
      .execute();
  },
};
