// 018: cluster mode (docs/cluster.md). Nodes hold leases in `cluster_nodes`; each instance has an
// owner (the node's id and its incarnation, a fresh id per process start) and an ownership epoch,
// raised by every change of owner. On PostgreSQL, `zapgate_fence()` refuses a write to an instance's
// rows from a connection whose `zapgate.fence` setting names another incarnation than the owner's:
// the engine of a node writes only through such connections, so a node that was paused or cut off
// while others took its instances over cannot land a late write (store/fence-triggers.ts attaches
// the function to every table with an instance_id column). Connections without the setting (request
// handling, the CLI) are not fenced. SQLite runs one node: it gets the columns and nothing else.
import { sql, type Kysely } from 'kysely';
import type { Migration } from './migration.js';

export const migration018Cluster: Migration = {
  name: '018-cluster',
  async up(db: Kysely<unknown>, caps) {
    await db.schema
      .createTable('cluster_nodes')
      .addColumn('node_id', 'text', (c) => c.primaryKey())
      .addColumn('incarnation', 'text', (c) => c.notNull())
      .addColumn('url', 'text', (c) => c.notNull())
      .addColumn('started_at', 'bigint', (c) => c.notNull())
      // Database time (ms): leases are compared with the database's clock, never a node's.
      .addColumn('heartbeat_at', 'bigint', (c) => c.notNull())
      .addColumn('lease_until', 'bigint', (c) => c.notNull())
      // 'up', or 'leaving' while a SIGTERMed node hands its instances over.
      .addColumn('state', 'text', (c) => c.notNull().defaultTo('up'))
      .execute();
    await db.schema.alterTable('instances').addColumn('owner_node', 'text').execute();
    await db.schema.alterTable('instances').addColumn('owner_incarnation', 'text').execute();
    await db.schema.alterTable('instances').addColumn('owner_epoch', 'bigint', (c) => c.notNull().defaultTo(0)).execute();
    await db.schema.createIndex('instances_owner').on('instances').column('owner_incarnation').execute();
    if (caps.name !== 'postgres') return;
    // The row lock (FOR SHARE) makes a write and a change of owner exclusive: a takeover waits for a
    // write in progress to commit, and a write after the takeover sees the new owner and fails.
    await sql`
      create or replace function zapgate_fence() returns trigger language plpgsql as $fn$
      declare
        fence text := current_setting('zapgate.fence', true);
        target text;
      begin
        if fence is null or fence = '' then
          return coalesce(new, old);
        end if;
        if tg_table_name = 'instances' then
          if tg_op = 'UPDATE' and old.owner_incarnation is not distinct from fence then
            return new;
          end if;
          raise exception 'zapgate fence: instance % is not owned by incarnation %', coalesce(new.id, old.id), fence using errcode = 'ZG001';
        end if;
        if tg_op = 'DELETE' then target := old.instance_id; else target := new.instance_id; end if;
        perform 1 from instances where id = target and owner_incarnation = fence for share;
        if not found then
          raise exception 'zapgate fence: instance % is not owned by incarnation %', target, fence using errcode = 'ZG001';
        end if;
        return coalesce(new, old);
      end
      $fn$`.execute(db);
  },
};
