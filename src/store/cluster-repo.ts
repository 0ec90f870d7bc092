// Cluster membership and instance ownership on PostgreSQL (cluster mode, docs/cluster.md). Leases
// are read and written in the database's clock, so nodes with skewed clocks agree on who is alive.
// An instance's owner is an incarnation (one per process start) of a node; it is "live" while that
// incarnation's lease runs. Claims take orphans with FOR UPDATE SKIP LOCKED, so nodes claiming at
// once never take the same instance and never wait on each other.
import { sql, type Kysely } from 'kysely';
import type { ClusterNodeState, DB } from './schema.js';

/** The database's clock in ms. */
const DB_NOW = sql<number>`(extract(epoch from clock_timestamp()) * 1000)::bigint`;

interface ClusterNodeRow {
  nodeId: string;
  incarnation: string;
  url: string;
  startedAt: number;
  heartbeatAt: number;
  leaseUntil: number;
  state: ClusterNodeState;
  live: boolean;
  /** Instances it owns now. */
  owned: number;
}

export interface InstanceOwner {
  nodeId: string | null;
  incarnation: string | null;
  epoch: number;
  /** Where the owner is reached; null without a live owner. */
  url: string | null;
  live: boolean;
}

interface OwnedInstance {
  id: string;
  epoch: number;
}

export class ClusterRepo {
  constructor(private readonly db: Kysely<DB>) {}

  /**
   * Registers this incarnation under `nodeId` with a fresh lease. A row left by an earlier
   * incarnation of the same node is replaced only once its lease has run out (by the database's
   * clock) or it deregistered: its instances become orphans then. While another incarnation's
   * lease still runs, nothing changes and its incarnation is answered: that process may still hold
   * WhatsApp sockets (killed a moment ago, or a second process given the same node id), and taking
   * its instances now could log a device in twice (docs/cluster.md, "One socket per device").
   */
  async register(nodeId: string, incarnation: string, url: string, leaseMs: number): Promise<{ heldBy: string | null }> {
    return this.db.transaction().execute(async (trx) => {
      const old = await trx
        .selectFrom('cluster_nodes')
        .select(['incarnation', sql<boolean>`lease_until > ${DB_NOW}`.as('live')])
        .where('node_id', '=', nodeId)
        .forUpdate()
        .executeTakeFirst();
      if (old?.live && old.incarnation !== incarnation) return { heldBy: old.incarnation };
      await trx.deleteFrom('cluster_nodes').where('node_id', '=', nodeId).execute();
      await trx
        .insertInto('cluster_nodes')
        .values({
          node_id: nodeId,
          incarnation,
          url,
          started_at: DB_NOW as unknown as number,
          heartbeat_at: DB_NOW as unknown as number,
          lease_until: sql<number>`${DB_NOW} + ${leaseMs}` as unknown as number,
          state: 'up',
        })
        .execute();
      return { heldBy: null };
    });
  }

  /**
   * Extends a lease that still runs; false when it has run out (others may have taken this node's
   * instances: a lapsed lease is never revived) or the row is no longer this incarnation's.
   */
  async renew(nodeId: string, incarnation: string, leaseMs: number): Promise<boolean> {
    const r = await this.db
      .updateTable('cluster_nodes')
      .set({ heartbeat_at: DB_NOW as unknown as number, lease_until: sql<number>`${DB_NOW} + ${leaseMs}` as unknown as number })
      .where('node_id', '=', nodeId)
      .where('incarnation', '=', incarnation)
      .where('lease_until', '>', DB_NOW)
      .executeTakeFirst();
    return Number(r.numUpdatedRows) === 1;
  }

  async setState(incarnation: string, state: ClusterNodeState): Promise<void> {
    await this.db.updateTable('cluster_nodes').set({ state }).where('incarnation', '=', incarnation).execute();
  }

  /** Removes this incarnation's row (a node that has handed everything over). */
  async deregister(incarnation: string): Promise<void> {
    await this.db.deleteFrom('cluster_nodes').where('incarnation', '=', incarnation).execute();
  }

  /** Every registered node with its lease state and the instances it owns, live ones first. */
  async nodes(): Promise<ClusterNodeRow[]> {
    const rows = await this.db
      .selectFrom('cluster_nodes as n')
      .leftJoin('instances as i', 'i.owner_incarnation', 'n.incarnation')
      .select([
        'n.node_id',
        'n.incarnation',
        'n.url',
        'n.started_at',
        'n.heartbeat_at',
        'n.lease_until',
        'n.state',
        sql<boolean>`n.lease_until > ${DB_NOW}`.as('live'),
        sql<string>`count(i.id)`.as('owned'),
      ])
      .groupBy(['n.node_id', 'n.incarnation', 'n.url', 'n.started_at', 'n.heartbeat_at', 'n.lease_until', 'n.state'])
      .orderBy('n.node_id')
      .execute();
    return rows.map((r) => ({
      nodeId: r.node_id,
      incarnation: r.incarnation,
      url: r.url,
      startedAt: Number(r.started_at),
      heartbeatAt: Number(r.heartbeat_at),
      leaseUntil: Number(r.lease_until),
      state: r.state,
      live: r.live,
      owned: Number(r.owned),
    }));
  }

  async instanceCount(): Promise<number> {
    const r = await this.db.selectFrom('instances').select((eb) => eb.fn.countAll<string>().as('n')).executeTakeFirstOrThrow();
    return Number(r.n);
  }

  /** What this incarnation owns according to the database. */
  async owned(incarnation: string): Promise<OwnedInstance[]> {
    const rows = await this.db.selectFrom('instances').select(['id', 'owner_epoch']).where('owner_incarnation', '=', incarnation).execute();
    return rows.map((r) => ({ id: r.id, epoch: Number(r.owner_epoch) }));
  }

  async ownerOf(instanceId: string): Promise<InstanceOwner | undefined> {
    const r = await this.db
      .selectFrom('instances as i')
      .leftJoin('cluster_nodes as n', 'n.incarnation', 'i.owner_incarnation')
      .select(['i.owner_node', 'i.owner_incarnation', 'i.owner_epoch', 'n.url', sql<boolean | null>`n.lease_until > ${DB_NOW}`.as('live')])
      .where('i.id', '=', instanceId)
      .executeTakeFirst();
    if (!r) return undefined;
    const live = r.live === true;
    return { nodeId: r.owner_node, incarnation: r.owner_incarnation, epoch: Number(r.owner_epoch), url: live ? r.url : null, live };
  }

  /**
   * Takes up to `limit` orphans (no owner, or an owner whose lease has run out) for this
   * incarnation, raising each one's epoch. Rows another node is claiming (or writing under its
   * fence) are skipped, not waited for.
   */
  async claimOrphans(nodeId: string, incarnation: string, limit: number): Promise<OwnedInstance[]> {
    if (limit <= 0) return [];
    const r = await sql<{ id: string; owner_epoch: string }>`
      with orphans as (
        select i.id from instances i
        where i.owner_incarnation is null
           or not exists (select 1 from cluster_nodes n where n.incarnation = i.owner_incarnation and n.lease_until > ${DB_NOW})
        order by i.created_at
        limit ${limit}
        for update of i skip locked
      )
      update instances set owner_node = ${nodeId}, owner_incarnation = ${incarnation}, owner_epoch = owner_epoch + 1
      from orphans where instances.id = orphans.id
      returning instances.id, instances.owner_epoch`.execute(this.db);
    return r.rows.map((x) => ({ id: x.id, epoch: Number(x.owner_epoch) }));
  }

  /**
   * Gives a new instance (no owner yet) to the live node that owns the fewest, ties broken by
   * node id. Answers the owner chosen, or null when no node is live (a claim picks it up later).
   */
  async assignNew(instanceId: string): Promise<{ nodeId: string; incarnation: string; epoch: number } | null> {
    const r = await sql<{ owner_node: string; owner_incarnation: string; owner_epoch: string }>`
      with target as (
        select n.node_id, n.incarnation from cluster_nodes n
        left join instances i on i.owner_incarnation = n.incarnation
        where n.lease_until > ${DB_NOW} and n.state = 'up'
        group by n.node_id, n.incarnation
        order by count(i.id), n.node_id
        limit 1
      )
      update instances set owner_node = target.node_id, owner_incarnation = target.incarnation, owner_epoch = owner_epoch + 1
      from target where instances.id = ${instanceId} and instances.owner_incarnation is null
      returning instances.owner_node, instances.owner_incarnation, instances.owner_epoch`.execute(this.db);
    const row = r.rows[0];
    return row ? { nodeId: row.owner_node, incarnation: row.owner_incarnation, epoch: Number(row.owner_epoch) } : null;
  }

  /** Lets go of an instance this incarnation owns (after its session is closed); false if it did not own it. */
  async release(incarnation: string, instanceId: string): Promise<boolean> {
    const r = await this.db
      .updateTable('instances')
      .set({ owner_node: null, owner_incarnation: null })
      .where('id', '=', instanceId)
      .where('owner_incarnation', '=', incarnation)
      .executeTakeFirst();
    return Number(r.numUpdatedRows) === 1;
  }

  /** Every instance with its owner (zapgate cluster status). */
  async owners(): Promise<{ instanceId: string; nodeId: string | null; epoch: number; live: boolean }[]> {
    const rows = await this.db
      .selectFrom('instances as i')
      .leftJoin('cluster_nodes as n', 'n.incarnation', 'i.owner_incarnation')
      .select(['i.id', 'i.owner_node', 'i.owner_epoch', sql<boolean | null>`n.lease_until > ${DB_NOW}`.as('live')])
      .orderBy('i.created_at')
      .execute();
    return rows.map((r) => ({ instanceId: r.id, nodeId: r.owner_node, epoch: Number(r.owner_epoch), live: r.live === true }));
  }
}
