// The cluster's shared vocabulary, in a leaf so that the node, the request routing and the metrics
// can each name it without importing one another.

/** Where an instance's requests run: here, on another node (forwarded), nowhere yet, or not known. */
export type Placement = { kind: 'here' } | { kind: 'forward'; nodeId: string; url: string } | { kind: 'nobody' } | { kind: 'unknown' };

/** What a node runs for each instance it owns: started on acquire, stopped (sessions closed, writes drained) on release. */
export interface OwnedWork {
  acquire(instanceId: string): Promise<void>;
  release(instanceId: string): Promise<void>;
  /** After each reconcile: housekeeping of what this node owns. */
  tick?(): Promise<void>;
}

/** What the node reports of its hand-overs (cluster/metrics.ts counts them). */
export interface ClusterMetricsSink {
  handover(direction: 'acquired' | 'released' | 'lost'): void;
}
