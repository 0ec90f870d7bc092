// 026: `Idempotency-Key` on sends (docs/contract.md). A key names one accepted message of an
// instance for 24 hours: the key's row is written in the same transaction as the message's row
// (store/messages-enqueue.ts), so a key never names a message that was not queued, and a message is
// never queued twice under one key — on any node (the primary key decides between two racing
// requests), across restarts. `request_hash` tells a retry (the same request) from a reuse of the
// key for another one. Both dialects: a single node's clients retry too.
import type { Kysely } from 'kysely';
import type { Migration } from './migration.js';

export const migration026SendIdempotency: Migration = {
  name: '026-send-idempotency',
  async up(db: Kysely<unknown>) {
    await db.schema
      .createTable('send_idempotency_keys')
      .addColumn('instance_id', 'text', (c) => c.notNull().references('instances.id').onDelete('cascade'))
      .addColumn('key', 'text', (c) => c.notNull())
      .addColumn('request_hash', 'text', (c) => c.notNull())
      .addColumn('zaap_id', 'text', (c) => c.notNull())
      .addColumn('message_id', 'text', (c) => c.notNull())
      .addColumn('created_at', 'bigint', (c) => c.notNull())
      .addPrimaryKeyConstraint('send_idempotency_keys_pk', ['instance_id', 'key'])
      .execute();
  },
};
