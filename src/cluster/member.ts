// Cluster mode (docs/cluster.md): this node's membership and the store its engine, sender and outbox
// write through. Those connections are fenced with the node's incarnation (migration 018), so a
// write made after another node took an instance over is refused by the database. The node joins
// (takes its lease) later, once the gateway is built: the lease is renewed from then on, and nothing
// heavy runs between the join and the first renewal.
import type { Clock } from '../clock.js';
import type { ClusterSettings } from '../config.js';
import type { Logger } from '../logger.js';
import type { Metrics } from '../metrics.js';
import { ClusterRepo } from '../store/cluster-repo.js';
import { openDatabase, type Database } from '../store/database.js';
import { installFenceTriggers } from '../store/fence-triggers.js';
import { createStore, type Store } from '../store/index.js';
import { createClusterMetrics, type ClusterMetrics } from './metrics.js';
import { ClusterNode } from './node.js';

interface ClusterMemberDeps {
  settings: ClusterSettings;
  clock: Clock;
  /** The shared database, opened and migrated (its connections are not fenced). */
  database: Database;
  /** How the fenced connections reach it: the same database (and test schema). */
  databaseUrl: string | undefined;
  dataDir: string;
  pgSchema: string | undefined;
  metrics: Metrics;
  log: Logger;
  /** The node lost its lease: every socket must close at once (others may take its instances now). */
  onFenced(): void;
}

export interface ClusterMember {
  readonly node: ClusterNode;
  /** The fenced connections (closed last). */
  readonly database: Database;
  /** What this node's engine, sender and outbox write through. */
  readonly store: Store;
  readonly metrics: ClusterMetrics;
}

export async function openClusterMember(deps: ClusterMemberDeps): Promise<ClusterMember> {
  const { settings, log } = deps;
  const fenced = await installFenceTriggers(deps.database.db);
  log.debug({ tables: fenced.length }, 'cluster: instance tables fenced');
  let node: ClusterNode | null = null;
  const metrics = createClusterMetrics(deps.metrics.registry, () => node?.ownedIds().length ?? 0);
  node = new ClusterNode({
    repo: new ClusterRepo(deps.database.db),
    settings,
    clock: deps.clock,
    log: log.child({ component: 'cluster' }),
    metrics,
    onFenced: () => deps.onFenced(),
  });
  const database = await openDatabase({
    databaseUrl: deps.databaseUrl,
    dataDir: deps.dataDir,
    ...(deps.pgSchema ? { pgSchema: deps.pgSchema } : {}),
    fence: { incarnation: node.incarnation, idleTxMs: settings.leaseMs },
    migrate: false,
    onError: (err) => {
      if ((err as { code?: unknown }).code === 'ZG001') metrics.fencingRefusal();
    },
  });
  return { node, database, store: createStore(database), metrics };
}

/**
 * A node that lost its lease closes every WhatsApp socket at once (others may take its instances
 * now), then exits so that its supervisor starts a clean incarnation (exit code 75, "try again").
 * Closing gets 5 s at most (a guard: sockets that do not close in time are cut by the exit).
 */
export function closeAndExit(clock: Clock, closeSessions: () => Promise<void>): void {
  clock.setGuard(5_000, () => process.exit(75));
  void closeSessions()
    .catch(() => undefined)
    .finally(() => process.exit(75));
}
