// Cluster mode (docs/cluster.md): what this node starts when it acquires an instance and stops when it
// releases one. Acquire starts the session, then the sender's lane, then webhook delivery; release
// stops the lane first (a send in progress settles and reports), then the session, then commits the
// instance's last events and stops delivering them, so the next owner resumes where this one ended.
import type { Logger } from '../logger.js';
import type { OwnedWork } from './types.js';

interface HandoverDeps {
  /** The engine: the instance's WhatsApp session. */
  sessions: { acquire(instanceId: string): Promise<void>; release(instanceId: string): Promise<void> };
  /** The sender: the instance's FIFO lane. */
  sender: { acquire(instanceId: string): void; release(instanceId: string): Promise<void> };
  /** The outbox: webhook deliveries of the instance's events; `rescan` finds ones committed elsewhere. */
  outbox: { acquire(instanceId: string): Promise<void>; release(instanceId: string): Promise<void>; rescan(): Promise<void> };
  /** Group creations left pending (their previous owner died), resumed once their sessions connect. */
  groups: { resumePending(): Promise<void> };
  /** phone-exists-batch jobs of the instances this node owns (none: no engine runs them). */
  phoneCheckJobs?: { resume(mine: (instanceId: string) => boolean): Promise<void> } | undefined;
  owns(instanceId: string): boolean;
  log: Logger;
}

export function instanceHandover(deps: HandoverDeps): OwnedWork {
  const { sessions, sender, outbox, groups, phoneCheckJobs, owns, log } = deps;
  return {
    async acquire(id) {
      await sessions.acquire(id);
      sender.acquire(id);
      await outbox.acquire(id);
      void phoneCheckJobs?.resume(owns).catch((err: unknown) => log.warn({ err, instanceId: id }, 'resuming phone-check jobs failed'));
    },
    async release(id) {
      await sender.release(id);
      await sessions.release(id);
      await outbox.release(id);
    },
    // Every heartbeat: deliveries committed elsewhere, and group creations of acquired instances
    // (pending when their previous owner died) once their sessions are connected.
    tick: () => Promise.all([outbox.rescan(), groups.resumePending()]).then(() => undefined),
  };
}
