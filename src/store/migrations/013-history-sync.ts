// 013: history sync at pairing (issue 13), opt-in per instance. When a companion is linked, the
// phone sends it the account's recent chats and messages; zapgate imports them into the stored copy
// (010-chats) only when the instance asked for it, before it was paired:
// - history_import: 0/1, off by default (a phone's history can be large, and an operator may not
//   want old conversations stored at all);
// - history_days: how many days back messages are imported (older ones are dropped);
// - history_webhook: 0/1, imported messages also go to the received webhook (marked
//   `fromHistory: true`); off by default so a pairing never floods a client with old messages.
import type { Kysely } from 'kysely';
import type { Migration } from './migration.js';

export const migration013HistorySync: Migration = {
  name: '013-history-sync',
  async up(db: Kysely<unknown>) {
    // One column per statement: SQLite's ALTER TABLE adds one at a time.
    await db.schema.alterTable('instances').addColumn('history_import', 'integer', (c) => c.notNull().defaultTo(0)).execute();
    await db.schema.alterTable('instances').addColumn('history_days', 'integer', (c) => c.notNull().defaultTo(7)).execute();
    await db.schema.alterTable('instances').addColumn('history_webhook', 'integer', (c) => c.notNull().defaultTo(0)).execute();
  },
};
