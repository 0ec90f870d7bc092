// 006: a send that failed for a reason that may pass (network, media host, timeout) is retried
// with backoff under a budget. The budget must survive restarts, so the time of the next attempt
// and the machine-readable code of the last failure live on the message row; `attempts` (001)
// already counts the attempts started.
import type { Kysely } from 'kysely';
import type { Migration } from './migration.js';

export const migration006Sending: Migration = {
  name: '006-sending',
  async up(db: Kysely<unknown>) {
    // Null unless the message waits for a retry: the sender does not try it before this time (ms).
    await db.schema.alterTable('messages').addColumn('next_attempt_at', 'bigint').execute();
    // Z-API-style error code of the last failure (reported with `error` in the DeliveryCallback).
    await db.schema.alterTable('messages').addColumn('error_code', 'text').execute();
  },
};
