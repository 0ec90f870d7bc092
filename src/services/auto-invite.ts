// After an API-created group exists: report it (GROUP_CREATE with both ids) and, with autoInvite,
// queue the invite link as a private message to every number the network would not add.
import type { Logger } from '../logger.js';
import type { Metrics } from '../metrics.js';
import type { SessionManager } from '../sessions/manager.js';
import type { InstancesRepo } from '../store/instances-repo.js';
import type { GroupsService } from './groups-service.js';
import type { MessagesService } from './messages-service.js';

export function inviteText(groupName: string, link: string): string {
  return `You are invited to join the WhatsApp group "${groupName}": ${link}`;
}

export function wireAutoInvite(groups: GroupsService, engine: SessionManager, messages: MessagesService, store: { readonly instances: Pick<InstancesRepo, 'find'> }, log: Logger, metrics: Metrics): void {
  groups.onCreated(async (instanceId, view, request) => {
    if (view.status !== 'created') return;
    await engine.groupCreated(instanceId, view.groupId, view.phone, view.phonesNotAdded);
    if (!request.autoInvite || !view.inviteLink || view.phonesNotAdded.length === 0) return;
    const instance = await store.instances.find(instanceId);
    if (!instance) return;
    for (const phone of view.phonesNotAdded) {
      try {
        // Through the queue like any other message: paced, durable, reported by DeliveryCallback.
        await messages.send(instance, { phone }, { type: 'text', message: inviteText(request.groupName, view.inviteLink) });
      } catch (err) {
        metrics.loggedFailures.inc({ component: 'groups' });
        log.error({ err, instanceId, pendingId: view.groupId }, 'queueing an invite link failed');
      }
    }
  });
}
