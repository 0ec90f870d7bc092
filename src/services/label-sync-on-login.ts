// At each login, a business account's labels (tags) are brought up to date from its phone: the
// app-state sync announces later changes, but not the ones made while this gateway was away.
// It belongs beside the business engine (sessions/business-engine.ts); it waits here until the
// sessions/ restructuring gives it a place there.
import type { Logger } from '../logger.js';
import type { Metrics } from '../metrics.js';
import type { MessageTransport } from '../sessions/port.js';

export function syncLabelsAtLogin(
  sessions: Pick<MessageTransport, 'onConnectionChange'>,
  business: { syncLabels(instanceId: string): Promise<void> },
  log: Logger,
  metrics: Pick<Metrics, 'loggedFailures'>,
): void {
  sessions.onConnectionChange((instanceId, connected) => {
    if (!connected) return;
    business.syncLabels(instanceId).catch((err: unknown) => {
      metrics.loggedFailures.inc({ component: 'sessions' });
      log.warn({ err, instanceId }, 'syncing the labels at login failed (the next change announced by the phone brings them)');
    });
  });
}
