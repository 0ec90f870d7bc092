// 022: campaigns (docs/contract.md §12). A campaign and its recipients live in the store so a run
// survives restarts and failover; a recipient row moves pending → queued in the same transaction
// that queues its message (recording the message's ids), so no restart can send anyone twice.
import type { Kysely } from 'kysely';
import type { Migration } from './migration.js';

export const migration022Campaigns: Migration = {
  name: '022-campaigns',
  async up(db: Kysely<unknown>) {
    await db.schema
      .createTable('campaigns')
      .addColumn('id', 'text', (c) => c.primaryKey())
      .addColumn('account_id', 'text', (c) => c.notNull().references('accounts.id').onDelete('cascade'))
      .addColumn('name', 'text', (c) => c.notNull())
      .addColumn('template', 'text', (c) => c.notNull())
      // JSON array of instance ids: the numbers the campaign sends from.
      .addColumn('instance_ids', 'text', (c) => c.notNull())
      // draft → running ⇄ paused → done | cancelled
      .addColumn('state', 'text', (c) => c.notNull())
      // JSON: time zone, window, quiet hours, daily cap, pacing (src/domain/campaign.ts).
      .addColumn('settings', 'text', (c) => c.notNull())
      .addColumn('started_at', 'bigint')
      .addColumn('created_at', 'bigint', (c) => c.notNull())
      .addColumn('updated_at', 'bigint', (c) => c.notNull())
      .execute();
    await db.schema.createIndex('campaigns_account').on('campaigns').columns(['account_id', 'created_at']).execute();
    await db.schema.createIndex('campaigns_state').on('campaigns').column('state').execute();
    await db.schema
      .createTable('campaign_recipients')
      .addColumn('campaign_id', 'text', (c) => c.notNull().references('campaigns.id').onDelete('cascade'))
      .addColumn('position', 'integer', (c) => c.notNull())
      .addColumn('phone', 'text', (c) => c.notNull())
      // JSON object of the recipient's variables.
      .addColumn('vars', 'text', (c) => c.notNull())
      // The number that serves this recipient, fixed at creation.
      .addColumn('instance_id', 'text', (c) => c.notNull())
      // pending → queued (message_id set) | skipped (opted out before it was queued)
      .addColumn('state', 'text', (c) => c.notNull())
      .addColumn('message_id', 'text')
      .addColumn('zaap_id', 'text')
      .addColumn('queued_at', 'bigint')
      .addPrimaryKeyConstraint('campaign_recipients_pk', ['campaign_id', 'phone'])
      .execute();
    await db.schema.createIndex('campaign_recipients_next').on('campaign_recipients').columns(['campaign_id', 'instance_id', 'state', 'position']).execute();
    await db.schema.createIndex('campaign_recipients_position').on('campaign_recipients').columns(['campaign_id', 'position']).execute();
  },
};
