// 004: what the sender's anti-ban strategy must remember across restarts — which numbers each
// instance has already talked to (a first message to a stranger is what the network watches, and
// caps count them per hour and day) and the pause the strategy took after a restriction signal.
import type { Kysely } from 'kysely';
import type { Migration } from './migration.js';

export const migration004Sender: Migration = {
  name: '004-sender',
  async up(db: Kysely<unknown>) {
    await db.schema
      .createTable('instance_contacts')
      .addColumn('instance_id', 'text', (c) => c.notNull().references('instances.id').onDelete('cascade'))
      .addColumn('phone', 'text', (c) => c.notNull())
      // First time the number wrote to the instance (recorded by the engine).
      .addColumn('inbound_at', 'bigint')
      // First time the instance sent to the number.
      .addColumn('outbound_at', 'bigint')
      // Set when that first send went to a stranger: the caps count these rows.
      .addColumn('cold_at', 'bigint')
      .addPrimaryKeyConstraint('instance_contacts_pk', ['instance_id', 'phone'])
      .execute();
    await db.schema.createIndex('instance_contacts_cold').on('instance_contacts').columns(['instance_id', 'cold_at']).execute();

    await db.schema
      .createTable('antiban_state')
      .addColumn('instance_id', 'text', (c) => c.primaryKey().references('instances.id').onDelete('cascade'))
      .addColumn('paused_until', 'bigint')
      .addColumn('pause_reason', 'text')
      // Restrictions seen recently: each one doubles the next pause.
      .addColumn('restrictions', 'integer', (c) => c.notNull().defaultTo(0))
      .addColumn('last_restriction_at', 'bigint')
      .addColumn('updated_at', 'bigint', (c) => c.notNull())
      .execute();
  },
};
