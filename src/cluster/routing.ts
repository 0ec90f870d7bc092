// What the HTTP layer needs of the cluster to run each instance request on the instance's owner
// (http/cluster-forwarding.ts), put together from the node, the peer authentication and metrics.
import { Agent, type Dispatcher } from 'undici';
import type { Clock } from '../clock.js';
import type { ClusterMetrics } from './metrics.js';
import type { ClusterNode } from './node.js';
import { PeerAuth } from './peer-auth.js';
import type { Placement } from './types.js';

export interface ClusterRouting {
  readonly nodeId: string;
  readonly retryAfterSeconds: number;
  placement(instanceId: string): Promise<Placement>;
  /** A forward to the owner failed: look it up again next time. */
  forget(instanceId: string): void;
  /** Whether `nodeId` still owns the instance with a live lease (checked while a forward waits). */
  stillOwner(instanceId: string, nodeId: string): Promise<boolean>;
  /** Real ms between those checks. */
  readonly ownerCheckMs: number;
  sign(method: string, path: string): string;
  verify(header: string | undefined, method: string, path: string): boolean;
  forwarded(result: 'ok' | 'failed'): void;
  /** Keep-alive connections to the other nodes. */
  readonly agent: Dispatcher;
  /** Real ms a forwarded request may take (the longest command's wait, plus margin). */
  readonly timeoutMs: number;
}

export function clusterRouting(node: ClusterNode, secret: string, metrics: ClusterMetrics, timeoutMs: number, clock: Clock): ClusterRouting & { close(): Promise<void> } {
  const auth = new PeerAuth(secret, () => clock.now());
  const agent = new Agent({ connections: 64, keepAliveTimeout: 30_000, connect: { timeout: 5_000 } });
  return {
    nodeId: node.nodeId,
    get retryAfterSeconds() {
      return node.retryAfterSeconds;
    },
    placement: (id) => node.placement(id),
    forget: (id) => node.forget(id),
    async stillOwner(id, nodeId) {
      const owner = await node.ownerOf(id, true);
      return owner?.live === true && owner.nodeId === nodeId;
    },
    ownerCheckMs: node.heartbeatMs,
    sign: (method, path) => auth.sign(method, path),
    verify: (header, method, path) => auth.verify(header, method, path),
    forwarded: (result) => metrics.forwarded(result),
    agent,
    timeoutMs,
    close: () => agent.close(),
  };
}
