// The message configured for rejected calls (call-reject-auto) is sent to the caller through the
// queue like any other message: paced, durable, reported by DeliveryCallback.
import type { Logger } from '../logger.js';
import type { Metrics } from '../metrics.js';
import type { AccountReactions } from '../sessions/families/account/account-reactions.js';
import type { InstancesRepo } from '../store/instances-repo.js';
import type { MessagesService } from './messages-service.js';

export function wireCallRejectReply(reactions: AccountReactions, messages: MessagesService, store: { readonly instances: Pick<InstancesRepo, 'find'> }, log: Logger, metrics: Metrics): void {
  reactions.onCallRejected(async (instanceId, phone, message) => {
    const instance = await store.instances.find(instanceId);
    if (!instance) return;
    try {
      await messages.send(instance, { phone }, { type: 'text', message });
    } catch (err) {
      metrics.loggedFailures.inc({ component: 'sessions' });
      log.error({ err, instanceId }, 'queueing the call rejection message failed');
    }
  });
}
