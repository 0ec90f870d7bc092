// 003: webhook deliveries — one row per (event, webhook URL) tracking attempts, the next due time
// and the outcome, so the outbox survives restarts and failed deliveries can be replayed.
import { sql, type ColumnDefinitionBuilder, type Kysely } from 'kysely';
import type { Migration } from './migration.js';

export const migration003Webhooks: Migration = {
  name: '003-webhooks',
  async up(db: Kysely<unknown>, caps) {
    const serial = caps.autoIncrementType;
    const pk = (c: ColumnDefinitionBuilder) =>
      serial === 'integer' ? c.primaryKey().autoIncrement() : c.primaryKey();

    await db.schema
      .createTable('webhook_deliveries')
      .addColumn('seq', serial, pk)
      .addColumn('id', 'text', (c) => c.notNull().unique())
      .addColumn('event_id', 'text', (c) => c.notNull().references('events.id').onDelete('cascade'))
      .addColumn('instance_id', 'text', (c) => c.notNull().references('instances.id').onDelete('cascade'))
      .addColumn('kind', 'text', (c) => c.notNull())
      .addColumn('url', 'text', (c) => c.notNull())
      .addColumn('status', 'text', (c) => c.notNull())
      .addColumn('attempts', 'integer', (c) => c.notNull().defaultTo(0))
      // Non-null exactly while an attempt is still to be made: "due" is `next_attempt_at <= now`,
      // so finished rows drop out of every dispatcher query without a status filter.
      .addColumn('next_attempt_at', 'bigint')
      .addColumn('last_status', 'integer')
      .addColumn('last_error', 'text')
      .addColumn('created_at', 'bigint', (c) => c.notNull())
      .addColumn('updated_at', 'bigint', (c) => c.notNull())
      .execute();
    // A lane is (instance, url): the dispatcher reads a lane's due rows in order and its next due time.
    // Partial, so it holds only deliveries still to attempt: a delivery leaves it once, when it is done,
    // instead of moving inside it (every index entry touched costs pages written under fsync).
    await db.schema
      .createIndex('webhook_deliveries_lane')
      .on('webhook_deliveries')
      .columns(['instance_id', 'url', 'next_attempt_at', 'seq'])
      .where(sql.ref('next_attempt_at'), 'is not', null)
      .execute();
    // The replay API lists an instance's deliveries by status, oldest first.
    await db.schema
      .createIndex('webhook_deliveries_instance_status')
      .on('webhook_deliveries')
      .columns(['instance_id', 'status', 'seq'])
      .execute();
    // The retention sweep finds finished rows by age; partial for the same reason as the lane index.
    await db.schema
      .createIndex('webhook_deliveries_finished')
      .on('webhook_deliveries')
      .columns(['status', 'updated_at'])
      .where(sql.ref('next_attempt_at'), 'is', null)
      .execute();
    // Deleting an event cascades here; without this index each cascade would scan the table.
    await db.schema.createIndex('webhook_deliveries_event').on('webhook_deliveries').column('event_id').execute();
  },
};
