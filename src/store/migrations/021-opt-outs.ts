// 021: opt-outs (docs/contract.md §12). Each account keeps the numbers that asked to hear no more
// (by a keyword reply or through the API), and its settings: the keywords, the confirmation sent
// once, and strict mode (direct sends refused too). Scheduled sends and campaigns read the list
// when a message is about to leave.
import type { Kysely } from 'kysely';
import type { Migration } from './migration.js';

export const migration021OptOuts: Migration = {
  name: '021-opt-outs',
  async up(db: Kysely<unknown>) {
    await db.schema
      .createTable('opt_outs')
      .addColumn('account_id', 'text', (c) => c.notNull().references('accounts.id').onDelete('cascade'))
      .addColumn('phone', 'text', (c) => c.notNull())
      // 'keyword' (the person replied one) or 'api'.
      .addColumn('source', 'text', (c) => c.notNull())
      // The instance the keyword came to; null when added through the API.
      .addColumn('instance_id', 'text')
      // The message as the person wrote it (a keyword opt-out), for the record.
      .addColumn('keyword', 'text')
      .addColumn('created_at', 'bigint', (c) => c.notNull())
      .addPrimaryKeyConstraint('opt_outs_pk', ['account_id', 'phone'])
      .execute();
    await db.schema.createIndex('opt_outs_created').on('opt_outs').columns(['account_id', 'created_at']).execute();
    await db.schema
      .createTable('opt_out_settings')
      .addColumn('account_id', 'text', (c) => c.primaryKey().references('accounts.id').onDelete('cascade'))
      // JSON array of keywords; null = the defaults (src/domain/opt-out.ts).
      .addColumn('keywords', 'text')
      // Sent once to a number that opted out by keyword; null = the default, '' = none.
      .addColumn('confirmation', 'text')
      // 1: direct sends to an opted-out number are refused as well.
      .addColumn('strict', 'integer', (c) => c.notNull().defaultTo(0))
      .addColumn('updated_at', 'bigint', (c) => c.notNull())
      .execute();
  },
};
