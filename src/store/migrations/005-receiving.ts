// 005: what the receive side must remember — which network messages each instance has already
// reported (a message id becomes at most one event, across reconnects, network replays and
// restarts), and the media files received messages carry (where the bytes are once downloaded,
// and what is needed to download them again), and the gateway's own secrets (the key that signs
// media links lives in the database, so every node of a cluster signs and checks alike).
import type { Kysely } from 'kysely';
import type { Migration } from './migration.js';

export const migration005Receiving: Migration = {
  name: '005-receiving',
  async up(db: Kysely<unknown>) {
    await db.schema
      .createTable('inbound_messages')
      .addColumn('instance_id', 'text', (c) => c.notNull().references('instances.id').onDelete('cascade'))
      .addColumn('message_id', 'text', (c) => c.notNull())
      .addColumn('received_at', 'bigint', (c) => c.notNull())
      .addPrimaryKeyConstraint('inbound_messages_pk', ['instance_id', 'message_id'])
      .execute();
    // Retention sweeps go by age.
    await db.schema.createIndex('inbound_messages_age').on('inbound_messages').column('received_at').execute();

    await db.schema
      .createTable('media_files')
      .addColumn('id', 'text', (c) => c.primaryKey())
      .addColumn('instance_id', 'text', (c) => c.notNull().references('instances.id').onDelete('cascade'))
      .addColumn('message_id', 'text', (c) => c.notNull())
      .addColumn('kind', 'text', (c) => c.notNull())
      .addColumn('mimetype', 'text', (c) => c.notNull())
      .addColumn('file_name', 'text')
      // pending (not downloaded yet) → stored | failed (failed rows are tried again on request).
      .addColumn('status', 'text', (c) => c.notNull())
      // Content address of the decrypted bytes in the media store, once stored.
      .addColumn('sha256', 'text')
      .addColumn('size', 'bigint')
      .addColumn('error', 'text')
      .addColumn('attempts', 'integer', (c) => c.notNull().defaultTo(0))
      // The network's reference to the encrypted file (direct path, media key, hashes), JSON.
      .addColumn('source', 'text', (c) => c.notNull())
      .addColumn('created_at', 'bigint', (c) => c.notNull())
      .addColumn('expires_at', 'bigint', (c) => c.notNull())
      .execute();
    await db.schema
      .createTable('gateway_secrets')
      .addColumn('name', 'text', (c) => c.primaryKey())
      .addColumn('value', 'text', (c) => c.notNull())
      .addColumn('created_at', 'bigint', (c) => c.notNull())
      .execute();
    await db.schema.createIndex('media_files_expiry').on('media_files').column('expires_at').execute();
    await db.schema.createIndex('media_files_sha').on('media_files').column('sha256').execute();
    await db.schema.createIndex('media_files_message').on('media_files').columns(['instance_id', 'message_id']).execute();
  },
};
