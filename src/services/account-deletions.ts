// Account rotations and deletions made by the CLI (another process) apply in this one within 100 ms:
// the accounts' change feed is polled, and the instances of a deleted account lose their cached
// rows and their sessions here.
import type { Clock } from '../clock.js';
import type { Logger } from '../logger.js';
import type { Metrics } from '../metrics.js';
import type { SessionsPort } from '../sessions/port.js';
import type { AccountsService } from './accounts-service.js';
import type { InstancesService } from './instances-service.js';

interface AccountDeletionsDeps {
  accounts: Pick<AccountsService, 'watch'>;
  instances: Pick<InstancesService, 'invalidate'>;
  sessions: Pick<SessionsPort, 'remove'>;
  /** The deleted instances' queued messages went with them: their stored media may go (the sweep). */
  mediaReleased(): void;
  log: Logger;
  metrics: Pick<Metrics, 'loggedFailures'>;
  clock: Pick<Clock, 'now'>;
}

/** How often the change feed is read. */
const POLL_MS = 100;
/** A database that is down is said once a minute, not ten times a second. */
const ERROR_LOG_EVERY_MS = 60_000;

export async function applyAccountDeletions(deps: AccountDeletionsDeps): Promise<void> {
  const { instances, sessions, log, metrics, clock } = deps;
  let errorLoggedAt = -Infinity;
  await deps.accounts.watch(
    async (instanceIds) => {
      for (const id of instanceIds) {
        instances.invalidate(id);
        await sessions.remove(id).catch((err: unknown) => log.warn({ err, instanceId: id }, 'closing the session of a deleted account'));
      }
      deps.mediaReleased();
      log.info({ instances: instanceIds.length }, 'account deleted: its sessions are closed');
    },
    POLL_MS,
    (err) => {
      metrics.loggedFailures.inc({ component: 'accounts' });
      const now = clock.now();
      if (now - errorLoggedAt < ERROR_LOG_EVERY_MS) return;
      errorLoggedAt = now;
      log.error({ err }, 'reading account changes failed');
    },
  );
}
