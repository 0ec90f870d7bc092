// 007: the wording that closes a list rendered as numbered text ("Reply with the number of your
// choice.") becomes a per-instance setting (PUT …/update-list-reply-hint), so instances that talk
// Portuguese or Spanish are not stuck with English. NULL keeps the built-in default.
import type { Kysely } from 'kysely';
import type { Migration } from './migration.js';

export const migration007SendKinds: Migration = {
  name: '007-send-kinds',
  async up(db: Kysely<unknown>) {
    await db.schema.alterTable('instances').addColumn('list_reply_hint', 'text').execute();
  },
};
