// 014: a WhatsApp Business account's labels (Z-API's tags) and the chats they are on, as the
// account's app-state carries them (issue 16). WhatsApp keeps them on the phone and syncs them to
// linked devices; zapgate keeps its copy up to date from that sync (and from its own changes), so
// GET /tags is a read, not a network round trip, and a change made on the phone can be reported
// (CHAT_LABEL_ASSOCIATION) only when it really changes something.
// - labels: one row per live label (a deleted label's row is removed with its associations);
//   label_id is WhatsApp's ("1", "2", …), color its colour index 0–19;
// - label_chats: which chats a label is on; chat_id is the Z-API phone (`<digits>`, `<digits>-group`
//   or `<digits>@lid`) and jid the one the network named.
import type { Kysely } from 'kysely';
import type { Migration } from './migration.js';

export const migration014Labels: Migration = {
  name: '014-labels',
  async up(db: Kysely<unknown>) {
    await db.schema
      .createTable('labels')
      .addColumn('instance_id', 'text', (c) => c.notNull().references('instances.id').onDelete('cascade'))
      .addColumn('label_id', 'text', (c) => c.notNull())
      .addColumn('name', 'text', (c) => c.notNull())
      .addColumn('color', 'integer', (c) => c.notNull())
      .addColumn('predefined_id', 'text')
      .addColumn('updated_at', 'bigint', (c) => c.notNull())
      .addPrimaryKeyConstraint('labels_pk', ['instance_id', 'label_id'])
      .execute();
    await db.schema
      .createTable('label_chats')
      .addColumn('instance_id', 'text', (c) => c.notNull().references('instances.id').onDelete('cascade'))
      .addColumn('label_id', 'text', (c) => c.notNull())
      .addColumn('chat_id', 'text', (c) => c.notNull())
      .addColumn('jid', 'text', (c) => c.notNull())
      .addColumn('updated_at', 'bigint', (c) => c.notNull())
      .addPrimaryKeyConstraint('label_chats_pk', ['instance_id', 'label_id', 'chat_id'])
      .execute();
    await db.schema.createIndex('label_chats_chat').on('label_chats').columns(['instance_id', 'chat_id']).execute();
  },
};
