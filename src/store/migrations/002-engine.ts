// 002: what the WhatsApp engine keeps beside the credentials of 001 — a cache of phone-existence
// answers (shared by every instance: existence is a fact of the network) and the recent messages
// each instance sent or received, kept so replies can quote them, retries and poll votes can be
// decrypted and deletions can build the exact message key.
import type { Kysely } from 'kysely';
import type { Migration } from './migration.js';

export const migration002Engine: Migration = {
  name: '002-engine',
  async up(db: Kysely<unknown>) {
    await db.schema
      .createTable('phone_checks')
      .addColumn('phone', 'text', (c) => c.primaryKey())
      .addColumn('exists', 'integer', (c) => c.notNull())
      // The number as the network knows it (Brazilian numbers may differ by the 9th digit).
      .addColumn('output_phone', 'text', (c) => c.notNull())
      .addColumn('lid', 'text')
      .addColumn('checked_at', 'bigint', (c) => c.notNull())
      .execute();

    await db.schema
      .createTable('wa_messages')
      .addColumn('instance_id', 'text', (c) => c.notNull().references('instances.id').onDelete('cascade'))
      .addColumn('message_id', 'text', (c) => c.notNull())
      .addColumn('remote_jid', 'text', (c) => c.notNull())
      .addColumn('from_me', 'integer', (c) => c.notNull())
      .addColumn('participant', 'text')
      .addColumn('message', 'text', (c) => c.notNull())
      .addColumn('meta', 'text')
      .addColumn('created_at', 'bigint', (c) => c.notNull())
      .addPrimaryKeyConstraint('wa_messages_pk', ['instance_id', 'message_id'])
      .execute();
    // "The latest list we sent to this chat" (numbered-text answers) and pruning by age.
    await db.schema.createIndex('wa_messages_chat').on('wa_messages').columns(['instance_id', 'remote_jid', 'created_at']).execute();
    await db.schema.createIndex('wa_messages_age').on('wa_messages').column('created_at').execute();
  },
};
