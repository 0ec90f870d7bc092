// 020: a send may name the time it leaves (`scheduledAt`, docs/contract.md §12). The time lives on
// the queued row, so it survives restarts and, in cluster mode, whichever node owns the instance
// reads it: a lane takes only rows whose time has come (null = at once), and finds the next time
// to wake up through the index below.
import type { Kysely } from 'kysely';
import type { Migration } from './migration.js';

export const migration020ScheduledSends: Migration = {
  name: '020-scheduled-sends',
  async up(db: Kysely<unknown>) {
    // Wall-clock ms before which the message is not sent; null = as soon as its turn comes.
    await db.schema.alterTable('messages').addColumn('scheduled_at', 'bigint').execute();
    await db.schema.createIndex('messages_scheduled').on('messages').columns(['instance_id', 'state', 'scheduled_at']).execute();
  },
};
