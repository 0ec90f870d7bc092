// 029: campaign notices and the daily cap's index (docs/contract.md §12).
//
// campaign_notices: a change of a campaign's state (start, pause, resume, cancel, finish, the
// governor's pause) is recorded as one row per number of the campaign, in the same transaction as
// the change; the node that owns the number reports it on that number's webhook and deletes it
// (services/campaign-events.ts). In cluster mode the change may be made by any node (the API is
// account-scoped) but an event can only be written by the number's owner (the fence), so the
// notice is how the change reaches the owner, and it survives a crash or a handover in between.
// The number's column is `sender_instance_id`, not `instance_id`: fence-triggers.ts fences every
// table with an `instance_id` column, and the notice must be writable by whichever node made the
// change (it is the request's or the runner's node, not the number's). The event itself is still
// written only by the owner, through its fenced connection.
//
// campaign_recipients_sent_since: the runner's daily-cap count (campaigns-repo.ts queuedSince), asked
// every step for every number, counted every queued recipient of the number through
// campaign_recipients_next and read each one's queued_at from the table (~12 ms at 40,000); with
// queued_at in the index it is a range count over the index alone. queued_at is set once, in the
// pending → queued move that also moves the row in campaign_recipients_next.
import type { ColumnDefinitionBuilder, Kysely } from 'kysely';
import type { Migration } from './migration.js';

export const migration029CampaignNotices: Migration = {
  name: '029-campaign-notices',
  async up(db: Kysely<unknown>, caps) {
    const serial = caps.autoIncrementType;
    const pk = (c: ColumnDefinitionBuilder) => (serial === 'integer' ? c.primaryKey().autoIncrement() : c.primaryKey());
    await db.schema
      .createTable('campaign_notices')
      // Orders a number's notices as the changes were committed (a pause before its resume).
      .addColumn('seq', serial, pk)
      .addColumn('campaign_id', 'text', (c) => c.notNull().references('campaigns.id').onDelete('cascade'))
      // The number to report it on (see above for the name); a deleted instance takes its notices along.
      .addColumn('sender_instance_id', 'text', (c) => c.notNull().references('instances.id').onDelete('cascade'))
      // The event's messageId, fixed at the change: also its once-key in the outbox, so a notice
      // reported again after a crash before its delete is dropped there (sink.ts, inbound_messages).
      .addColumn('message_id', 'text', (c) => c.notNull())
      // CAMPAIGN_STARTED, …, and the JSON array of its notificationParameters.
      .addColumn('notification', 'text', (c) => c.notNull())
      .addColumn('parameters', 'text', (c) => c.notNull())
      // When the change was made: the event's `momment`.
      .addColumn('created_at', 'bigint', (c) => c.notNull())
      .execute();
    await db.schema.createIndex('campaign_notices_number').on('campaign_notices').columns(['sender_instance_id', 'seq']).execute();
    await db.schema.createIndex('campaign_notices_campaign').on('campaign_notices').column('campaign_id').execute();
    await db.schema.createIndex('campaign_recipients_sent_since').on('campaign_recipients').columns(['campaign_id', 'instance_id', 'state', 'queued_at']).execute();
  },
};
