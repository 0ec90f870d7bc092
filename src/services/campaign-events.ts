// Campaign events (docs/contract.md §12): each change of a campaign's state is reported on the
// "received" webhook of every number the campaign sends from, the way Z-API reports system events
// (and today's ANTIBAN_PAUSED): a notification with `notificationParameters` [campaignId, name,
// reason?]. Emitted through the EventSink, so webhooks, broker sinks and the event stream see it.
//
// Two halves, so that any node can make a change and only a number's owner reports it (in cluster
// mode the outbox writes through fenced connections, docs/cluster.md): `notices()` builds one notice
// per number, recorded in the same transaction as the change (campaigns-repo.ts move); `deliver()`,
// run every runner step on each node, emits the notices of the numbers that node owns and deletes
// them. The notice's message id is the event's once-key: were a node to stop between the event's
// commit and the delete, the next delivery of that notice is dropped by the outbox, so each change
// is one event per number.
import { newUuid } from '../ids.js';
import { notificationEvent, type EventSink } from '../events/types.js';
import type { Logger } from '../logger.js';
import type { CampaignsRepo } from '../store/campaigns-repo.js';
import type { InstancesRepo } from '../store/instances-repo.js';
import type { CampaignRow, NewCampaignNotice } from '../store/schema.js';

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

/** Notices reported per number and delivery: a backlog drains over a few steps. */
const BATCH = 50;

/** The change's notice for each of the campaign's numbers, to record with the change itself. */
export function campaignNotices(c: Pick<CampaignRow, 'id' | 'name' | 'instance_ids'>, change: CampaignChange, at: number, reason?: string): NewCampaignNotice[] {
  const params = reason === undefined ? [c.id, c.name] : [c.id, c.name, reason];
  return (JSON.parse(c.instance_ids) as string[]).map((instanceId) => ({
    campaign_id: c.id,
    sender_instance_id: instanceId,
    message_id: newUuid(),
    notification: CAMPAIGN_NOTIFICATIONS[change],
    parameters: JSON.stringify(params),
    created_at: at,
  }));
}

export class CampaignEvents {
  constructor(
    private readonly deps: {
      events: EventSink;
      store: { campaigns: Pick<CampaignsRepo, 'noticeNumbers' | 'notices' | 'noticesDone'>; instances: Pick<InstancesRepo, 'find'> };
      log: Logger;
    },
  ) {}

  /**
   * Reports the pending notices of every number `owns` answers for. A number whose report fails
   * keeps its notices for the next call (an outbox that refused the write: the number moved to
   * another node, which reports them). Answers how many were reported.
   */
  async deliver(owns: (instanceId: string) => boolean): Promise<number> {
    const { campaigns, instances } = this.deps.store;
    let n = 0;
    for (const instanceId of await campaigns.noticeNumbers()) {
      if (!owns(instanceId)) continue;
      try {
        const notices = await campaigns.notices(instanceId, BATCH);
        const inst = await instances.find(instanceId);
        // Deleted meanwhile: its notices go with it (the foreign key), nothing to report.
        if (!inst || notices.length === 0) continue;
        const events = notices.map((x) =>
          notificationEvent({
            messageId: x.message_id,
            phone: inst.phone ?? '',
            fromMe: true,
            momment: Number(x.created_at),
            notification: x.notification,
            notificationParameters: JSON.parse(x.parameters) as string[],
          }),
        );
        await this.deps.events.emit(instanceId, events, notices.map((x) => x.message_id));
        await campaigns.noticesDone(notices.map((x) => Number(x.seq)));
        n += notices.length;
      } catch (err) {
        if ((err as { code?: unknown }).code === 'ZG001') {
          this.deps.log.info({ err, instanceId }, 'campaign events: the number moved to another node, which reports them');
          continue;
        }
        this.deps.log.error({ err, instanceId }, 'campaign events not reported yet');
      }
    }
    return n;
  }
}
