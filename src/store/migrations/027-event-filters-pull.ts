// 027: event filters and the pull API's ack position (issue 26, docs/contract.md §5b).
// `event_filters`: one row per instance and target (`webhooks`, or `sink:<kind>` for a broker sink),
// the filter as JSON (domain/event-filter.ts); no row means everything passes. `event_pull_cursors`:
// per instance, the commit position (`events.seq`) of the last event a pull consumer acknowledged,
// so the next `GET …/events/next` starts after it, across restarts and on any node. Both go with
// their instance.
import type { Kysely } from 'kysely';
import type { Migration } from './migration.js';

export const migration027EventFiltersPull: Migration = {
  name: '027-event-filters-pull',
  async up(db: Kysely<unknown>) {
    await db.schema
      .createTable('event_filters')
      .addColumn('instance_id', 'text', (c) => c.notNull().references('instances.id').onDelete('cascade'))
      .addColumn('target', 'text', (c) => c.notNull())
      .addColumn('filter', 'text', (c) => c.notNull())
      .addColumn('updated_at', 'bigint', (c) => c.notNull())
      .addPrimaryKeyConstraint('event_filters_pk', ['instance_id', 'target'])
      .execute();
    await db.schema
      .createTable('event_pull_cursors')
      .addColumn('instance_id', 'text', (c) => c.primaryKey().references('instances.id').onDelete('cascade'))
      .addColumn('acked_seq', 'bigint', (c) => c.notNull())
      .addColumn('acked_id', 'text', (c) => c.notNull())
      .addColumn('updated_at', 'bigint', (c) => c.notNull())
      .execute();
  },
};
