// 001: accounts, instances, webhook URLs, engine credentials, the message queue, groups and the outbox.
import type { ColumnDefinitionBuilder, Kysely } from 'kysely';
import type { Migration } from './migration.js';

export const migration001Core: Migration = {
  name: '001-core',
  async up(db: Kysely<unknown>, caps) {
    const serial = caps.autoIncrementType;
    const pk = (c: ColumnDefinitionBuilder) =>
      serial === 'integer' ? c.primaryKey().autoIncrement() : c.primaryKey();

    await db.schema
      .createTable('accounts')
      .addColumn('id', 'text', (c) => c.primaryKey())
      .addColumn('name', 'text', (c) => c.notNull())
      .addColumn('token_hash', 'text', (c) => c.notNull().unique())
      .addColumn('created_at', 'bigint', (c) => c.notNull())
      .execute();

    await db.schema
      .createTable('instances')
      .addColumn('id', 'text', (c) => c.primaryKey())
      .addColumn('account_id', 'text', (c) => c.notNull().references('accounts.id').onDelete('cascade'))
      .addColumn('name', 'text', (c) => c.notNull())
      .addColumn('token_hash', 'text', (c) => c.notNull())
      .addColumn('status', 'text', (c) => c.notNull())
      .addColumn('status_reason', 'text')
      .addColumn('status_since', 'bigint', (c) => c.notNull())
      .addColumn('phone', 'text')
      .addColumn('lid', 'text')
      .addColumn('antiban', 'integer', (c) => c.notNull().defaultTo(0))
      .addColumn('disable_enqueue_when_disconnected', 'integer', (c) => c.notNull().defaultTo(0))
      .addColumn('list_mode', 'text', (c) => c.notNull().defaultTo('poll'))
      .addColumn('notify_sent_by_me', 'integer', (c) => c.notNull().defaultTo(0))
      .addColumn('webhook_secret', 'text', (c) => c.notNull())
      .addColumn('webhook_secret_previous', 'text')
      .addColumn('created_at', 'bigint', (c) => c.notNull())
      .addColumn('paired_at', 'bigint')
      .execute();
    await db.schema.createIndex('instances_account').on('instances').column('account_id').execute();

    await db.schema
      .createTable('instance_status_history')
      .addColumn('id', serial, pk)
      .addColumn('instance_id', 'text', (c) => c.notNull().references('instances.id').onDelete('cascade'))
      .addColumn('status', 'text', (c) => c.notNull())
      .addColumn('reason', 'text')
      .addColumn('at', 'bigint', (c) => c.notNull())
      .execute();
    await db.schema.createIndex('status_history_instance').on('instance_status_history').columns(['instance_id', 'id']).execute();

    await db.schema
      .createTable('webhooks')
      .addColumn('instance_id', 'text', (c) => c.notNull().references('instances.id').onDelete('cascade'))
      .addColumn('kind', 'text', (c) => c.notNull())
      .addColumn('url', 'text', (c) => c.notNull())
      .addColumn('disabled_reason', 'text')
      .addColumn('updated_at', 'bigint', (c) => c.notNull())
      .addPrimaryKeyConstraint('webhooks_pk', ['instance_id', 'kind'])
      .execute();

    await db.schema
      .createTable('auth_creds')
      .addColumn('instance_id', 'text', (c) => c.primaryKey().references('instances.id').onDelete('cascade'))
      .addColumn('creds', 'text', (c) => c.notNull())
      .addColumn('updated_at', 'bigint', (c) => c.notNull())
      .execute();

    await db.schema
      .createTable('auth_keys')
      .addColumn('instance_id', 'text', (c) => c.notNull().references('instances.id').onDelete('cascade'))
      .addColumn('type', 'text', (c) => c.notNull())
      .addColumn('key_id', 'text', (c) => c.notNull())
      .addColumn('value', 'text', (c) => c.notNull())
      .addPrimaryKeyConstraint('auth_keys_pk', ['instance_id', 'type', 'key_id'])
      .execute();

    await db.schema
      .createTable('messages')
      .addColumn('seq', serial, pk)
      .addColumn('zaap_id', 'text', (c) => c.notNull().unique())
      .addColumn('instance_id', 'text', (c) => c.notNull().references('instances.id').onDelete('cascade'))
      .addColumn('message_id', 'text', (c) => c.notNull())
      .addColumn('phone', 'text', (c) => c.notNull())
      .addColumn('kind', 'text', (c) => c.notNull())
      .addColumn('payload', 'text', (c) => c.notNull())
      .addColumn('delay_message', 'integer')
      .addColumn('delay_typing', 'integer')
      .addColumn('state', 'text', (c) => c.notNull())
      .addColumn('wa_status', 'text')
      .addColumn('error', 'text')
      .addColumn('attempts', 'integer', (c) => c.notNull().defaultTo(0))
      .addColumn('created_at', 'bigint', (c) => c.notNull())
      .addColumn('updated_at', 'bigint', (c) => c.notNull())
      .addColumn('sent_at', 'bigint')
      .execute();
    // The sender reads "oldest queued message of this instance": this index serves it.
    await db.schema.createIndex('messages_queue').on('messages').columns(['instance_id', 'state', 'seq']).execute();
    await db.schema.createIndex('messages_message_id').on('messages').columns(['instance_id', 'message_id']).execute();

    await db.schema
      .createTable('pending_groups')
      .addColumn('id', 'text', (c) => c.primaryKey())
      .addColumn('instance_id', 'text', (c) => c.notNull().references('instances.id').onDelete('cascade'))
      .addColumn('status', 'text', (c) => c.notNull())
      .addColumn('group_id', 'text')
      .addColumn('invite_link', 'text')
      .addColumn('phones_not_added', 'text')
      .addColumn('error', 'text')
      .addColumn('request', 'text', (c) => c.notNull())
      .addColumn('created_at', 'bigint', (c) => c.notNull())
      .addColumn('updated_at', 'bigint', (c) => c.notNull())
      .execute();
    await db.schema.createIndex('pending_groups_instance').on('pending_groups').columns(['instance_id', 'status']).execute();

    await db.schema
      .createTable('events')
      .addColumn('seq', serial, pk)
      .addColumn('id', 'text', (c) => c.notNull().unique())
      .addColumn('instance_id', 'text', (c) => c.notNull().references('instances.id').onDelete('cascade'))
      .addColumn('kind', 'text', (c) => c.notNull())
      .addColumn('payload', 'text', (c) => c.notNull())
      .addColumn('created_at', 'bigint', (c) => c.notNull())
      .execute();
    await db.schema.createIndex('events_instance').on('events').columns(['instance_id', 'seq']).execute();
  },
};
