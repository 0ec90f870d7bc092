// 023: event sinks (issue 26, docs/contract.md §5b). One row per scope and broker kind: `scope` is an
// instance id, or `account:<account id>` for the account's default. `url` may hold the broker's
// credentials, as the database holds webhook secrets: the operator protects the database; the API
// and the logs only ever show it masked. No foreign key (the scope is one of two tables); an
// instance's rows go with it in InstancesRepo's delete, and orphans would be harmless (nothing
// resolves them).
import type { Kysely } from 'kysely';
import type { Migration } from './migration.js';

export const migration023EventSinks: Migration = {
  name: '023-event-sinks',
  async up(db: Kysely<unknown>) {
    await db.schema
      .createTable('event_sinks')
      .addColumn('scope', 'text', (c) => c.notNull())
      .addColumn('kind', 'text', (c) => c.notNull())
      .addColumn('enabled', 'integer', (c) => c.notNull())
      .addColumn('url', 'text', (c) => c.notNull())
      .addColumn('exchange', 'text', (c) => c.notNull())
      .addColumn('prefix', 'text', (c) => c.notNull())
      .addColumn('updated_at', 'bigint', (c) => c.notNull())
      .addPrimaryKeyConstraint('event_sinks_pk', ['scope', 'kind'])
      .execute();
  },
};
