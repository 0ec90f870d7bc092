// Per-node cluster metrics, registered only in cluster mode (every series exists from the first
// scrape: counters start at 0 for each label value the code uses).
import { Counter, Gauge, type Registry } from 'prom-client';
import type { ClusterMetricsSink } from './types.js';

export interface ClusterMetrics extends ClusterMetricsSink {
  forwarded(result: 'ok' | 'failed'): void;
  fencingRefusal(): void;
}

export function createClusterMetrics(registry: Registry, ownedNow: () => number): ClusterMetrics {
  const registers = [registry];
  new Gauge({
    name: 'zapgate_cluster_owned_instances',
    help: 'Instances this node runs now',
    registers,
    collect() {
      this.set(ownedNow());
    },
  });
  const handovers = new Counter({ name: 'zapgate_cluster_handovers_total', help: 'Instances this node acquired, handed over, or lost to another node', labelNames: ['direction'], registers });
  for (const d of ['acquired', 'released', 'lost']) handovers.inc({ direction: d }, 0);
  const forwarded = new Counter({ name: 'zapgate_cluster_forwarded_requests_total', help: 'Requests this node forwarded to the owner of their instance', labelNames: ['result'], registers });
  for (const r of ['ok', 'failed']) forwarded.inc({ result: r }, 0);
  const refusals = new Counter({ name: 'zapgate_cluster_fencing_refusals_total', help: 'Writes of this node the database refused because another node owns the instance now', registers });
  return {
    handover: (direction) => handovers.inc({ direction }),
    forwarded: (result) => forwarded.inc({ result }),
    fencingRefusal: () => refusals.inc(),
  };
}
