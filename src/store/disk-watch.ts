// Readiness while the disk is full (storage-health.ts tells when an episode starts and ends): a load
// balancer stops sending writes to a node that is not ready, so something else must write to find
// out that space is back. While an episode lasts this probes with a small write every
// DISK_PROBE_MS and on each readiness check (at most one probe at a time), and logs each episode
// once, when it starts and when it ends.
import { PeriodicTask, type Clock } from '../clock.js';
import type { Logger } from '../logger.js';
import type { Database } from './database.js';

/** How often a disk-full episode is probed with a small write, so readiness recovers by itself. */
const DISK_PROBE_MS = 2_000;

export interface DiskWatch {
  /** False at once when no episode is on; otherwise probes first, so a freed disk is seen now. */
  stillFull(): Promise<boolean>;
  /** Stops probing; resolves once a probe under way has ended. */
  stop(): Promise<void>;
}

export function watchDiskSpace(database: Pick<Database, 'probeWrite' | 'storage'>, log: Logger, clock: Clock): DiskWatch {
  let probing: Promise<void> | null = null;
  const probe = (): Promise<void> =>
    (probing ??= database
      .probeWrite()
      .catch(() => undefined) // still full (or another failure the next real write will report)
      .finally(() => (probing = null)));
  // probe() never rejects, so onError has nothing to say.
  const prober = new PeriodicTask(clock, { everyMs: DISK_PROBE_MS, timing: 'guard', run: probe, onError: () => undefined });
  database.storage.onChange((full, cause) => {
    if (full) {
      const detail = cause instanceof Error ? cause.message : String(cause);
      log.error({ detail }, 'disk full: writes fail (HTTP 507) until space is freed; nothing already accepted is lost');
      prober.start();
    } else {
      log.warn('disk space is available again: writes succeed');
      void prober.stop();
    }
  });
  return {
    async stillFull() {
      if (!database.storage.full) return false;
      await probe();
      return database.storage.full;
    },
    async stop() {
      await prober.stop();
    },
  };
}
