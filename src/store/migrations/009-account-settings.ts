// 009: the "account as the phone sees it" settings Z-API keeps per instance, so they survive a
// restart and apply to every session the instance opens:
// - auto_read_message / auto_read_status (PUT …/update-auto-read-message, …-status): received
//   messages (and status posts) are marked read as soon as their event is committed;
// - call_reject_auto / call_reject_message (PUT …/update-call-reject-auto, …-message): incoming
//   calls are rejected and the caller is sent the message (NULL: no message).
// Flags are 0/1 integers, as every other flag, so one set of queries serves both dialects.
import type { Kysely } from 'kysely';
import type { Migration } from './migration.js';

export const migration009AccountSettings: Migration = {
  name: '009-account-settings',
  async up(db: Kysely<unknown>) {
    // One column per statement: SQLite's ALTER TABLE adds one at a time.
    await db.schema.alterTable('instances').addColumn('auto_read_message', 'integer', (c) => c.notNull().defaultTo(0)).execute();
    await db.schema.alterTable('instances').addColumn('auto_read_status', 'integer', (c) => c.notNull().defaultTo(0)).execute();
    await db.schema.alterTable('instances').addColumn('call_reject_auto', 'integer', (c) => c.notNull().defaultTo(0)).execute();
    await db.schema.alterTable('instances').addColumn('call_reject_message', 'text').execute();
  },
};
