// Campaign events (docs/contract.md §12): each change of a campaign's state is reported on the
// "received" webhook of every number the campaign sends from, the way Z-API reports system events
// (and today's ANTIBAN_PAUSED): a notification with `notificationParameters` [campaignId, name,
// reason?]. Emitted through the EventSink, so webhooks, broker sinks and the event stream see it.
import { newUuid } from '../ids.js';
import { notificationEvent, type EventSink } from '../events/types.js';
import type { Logger } from '../logger.js';
import type { InstancesRepo } from '../store/instances-repo.js';
import type { CampaignRow } from '../store/schema.js';

/** The notification names, one per change (documented in docs/contract.md §12). */
export const CAMPAIGN_NOTIFICATIONS = {
  started: 'CAMPAIGN_STARTED',
  paused: 'CAMPAIGN_PAUSED',
  resumed: 'CAMPAIGN_RESUMED',
  finished: 'CAMPAIGN_FINISHED',
  cancelled: 'CAMPAIGN_CANCELLED',
  autoPaused: 'CAMPAIGN_AUTO_PAUSED',
} as const;

export type CampaignChange = keyof typeof CAMPAIGN_NOTIFICATIONS;

export class CampaignEvents {
  constructor(
    private readonly deps: {
      events: EventSink;
      store: { instances: Pick<InstancesRepo, 'find'> };
      now: () => number;
      log: Logger;
    },
  ) {}

  /**
   * Reports the change on each of the campaign's numbers. A failure to report is logged, never
   * thrown: the change itself is already committed and must not be answered as failed.
   */
  async report(c: Pick<CampaignRow, 'id' | 'name' | 'instance_ids'>, change: CampaignChange, reason?: string): Promise<void> {
    const params = reason === undefined ? [c.id, c.name] : [c.id, c.name, reason];
    for (const instanceId of JSON.parse(c.instance_ids) as string[]) {
      try {
        const inst = await this.deps.store.instances.find(instanceId);
        if (!inst) continue;
        await this.deps.events.emit(instanceId, [
          notificationEvent({
            messageId: newUuid(),
            phone: inst.phone ?? '',
            fromMe: true,
            momment: this.deps.now(),
            notification: CAMPAIGN_NOTIFICATIONS[change],
            notificationParameters: params,
          }),
        ]);
      } catch (err) {
        this.deps.log.error({ err, campaignId: c.id, instanceId, change }, 'campaign event not reported');
      }
    }
  }
}
