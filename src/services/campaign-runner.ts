// The campaign runner (docs/contract.md §12): every step, for each running campaign and each of its
// numbers, queues the next recipient's message when the number has none of the campaign's still
// waiting, the pacing allows, the local time is outside quiet hours and the day's cap is not
// reached. One message outstanding per number means a pause stops the campaign within one step,
// and the lane (pacing, anti-ban) decides when it actually leaves. Everything it decides on is read
// from the store (the pacing from the last message's queued_at too), so a restart or, in cluster
// mode, the node that takes a number over goes on where the last one stopped; a node steps only the
// numbers it owns, like the lanes that send them.
import { PeriodicTask, type Clock } from '../clock.js';
import type { Logger } from '../logger.js';
import type { Metrics } from '../metrics.js';
import { newWaMessageId, newZaapId } from '../ids.js';
import { fillTemplate, inQuietHours, msOfLocalDay, type CampaignSettings } from '../domain/campaign.js';
import type { CampaignsRepo } from '../store/campaigns-repo.js';
import type { OptOutsRepo } from '../store/opt-outs-repo.js';
import type { AntibanRepo } from '../store/antiban-repo.js';
import type { InstancesRepo } from '../store/instances-repo.js';
import type { CampaignRow } from '../store/schema.js';
import type { SendQueue } from './messages-service.js';
import { campaignNotices, type CampaignEvents } from './campaign-events.js';

interface RunnerDeps {
  store: { campaigns: CampaignsRepo; optOuts: Pick<OptOutsRepo, 'has'>; antiban: Pick<AntibanRepo, 'pause'>; instances: Pick<InstancesRepo, 'find'> };
  clock: Clock;
  log: Logger;
  metrics?: Pick<Metrics, 'loggedFailures'>;
  queue: SendQueue | null;
  /** Reports the campaigns' changes on the numbers this node owns (each step, before the campaigns). */
  events?: Pick<CampaignEvents, 'deliver'>;
  /** Ms between steps, on the clock. */
  stepMs?: number;
}

export class CampaignRunner {
  private readonly task: PeriodicTask;
  /** Cluster mode: whether this node runs the instance now (cluster/node.ts); alone, every one. */
  private owns: (instanceId: string) => boolean = () => true;

  constructor(private readonly deps: RunnerDeps) {
    this.task = new PeriodicTask(deps.clock, {
      everyMs: deps.stepMs ?? 100,
      // A poll of the store (pause, resume, new campaigns, a previous message gone): real time, so a
      // time-lapse run does not poll 1/scale times as often. Pacing and days compare clock.now().
      timing: 'guard',
      run: () => this.step(),
      onError: (err) => {
        // The number moved to another node between the ownership check and the write: the fence
        // refused the write (counted in zapgate_cluster_fencing_refusals_total), the new owner goes on.
        if ((err as { code?: unknown }).code === 'ZG001') return this.deps.log.info({ err }, 'campaign step: the number moved to another node');
        this.deps.log.error({ err }, 'campaign step failed');
        this.deps.metrics?.loggedFailures.inc({ component: 'campaigns' });
      },
    });
  }

  /** `owns`: in cluster mode, the numbers this node steps (ownership moves; it is asked every step). */
  start(owns?: (instanceId: string) => boolean): void {
    if (owns) this.owns = owns;
    this.task.start();
  }

  /** No further step starts, and the one under way has ended when this resolves. */
  async stop(): Promise<void> {
    await this.task.stop();
  }

  /** One pass: the changes' notices of the numbers this node owns, then the running campaigns (exposed for tests). */
  async step(): Promise<void> {
    await this.deps.events?.deliver(this.owns);
    for (const c of await this.deps.store.campaigns.running()) await this.stepCampaign(c);
  }

  private async stepCampaign(c: CampaignRow): Promise<void> {
    const { store, clock } = this.deps;
    const s = JSON.parse(c.settings) as CampaignSettings;
    // The campaign's clock is the gateway's: a time-lapse run sees days and quiet hours pass.
    const now = clock.now();
    if (s.startAt !== null && now < s.startAt) return;
    if (s.endAt !== null && now > s.endAt) {
      await store.campaigns.move(c.id, ['running'], 'done', now, { notices: campaignNotices(c, 'finished', now, 'endAt passed') });
      return;
    }
    if (inQuietHours(now, s)) return;
    if (await this.governorPaused(c, now)) return;
    // Whole ms: PostgreSQL compares it with a bigint column (a fraction there is an error).
    const dayStart = Math.floor(now - msOfLocalDay(now, s.timeZone));
    let busy = false;
    for (const instanceId of JSON.parse(c.instance_ids) as string[]) {
      const last = await store.campaigns.lastQueued(c.id, instanceId);
      if (last?.waiting) {
        busy = true;
        continue;
      }
      // Another node's number: it paces and caps it (its recipients keep pendingCount above 0).
      if (!this.owns(instanceId)) continue;
      if (last && last.queuedAt + s.paceMs > now) {
        busy = true;
        continue;
      }
      const next = await store.campaigns.nextPending(c.id, instanceId);
      if (!next) continue;
      busy = true;
      if ((await store.campaigns.queuedSince(c.id, instanceId, dayStart)) >= s.dailyCap) continue;
      const accountId = c.account_id;
      if (await store.optOuts.has(accountId, next.phone)) {
        await store.campaigns.skip(c.id, [next.phone]);
        continue;
      }
      const vars = { phone: next.phone, ...(JSON.parse(next.vars) as Record<string, string>) };
      const payload = JSON.stringify({ content: { type: 'text', message: fillTemplate(c.template, vars) } });
      const queued = await store.campaigns.enqueue(
        c.id,
        next.phone,
        {
          zaap_id: newZaapId(now),
          instance_id: instanceId,
          message_id: newWaMessageId(now),
          phone: next.phone,
          kind: 'text',
          payload,
          delay_message: null,
          delay_typing: null,
          state: 'queued',
          wa_status: null,
          error: null,
          created_at: now,
          updated_at: now,
          sent_at: null,
          // Scheduled "now": the lane skips it if the recipient opts out before it leaves.
          scheduled_at: now,
        },
        now,
      );
      if (queued) this.deps.queue?.notify(instanceId);
    }
    if (!busy && (await store.campaigns.pendingCount(c.id)) === 0) {
      await store.campaigns.move(c.id, ['running'], 'done', now, { notices: campaignNotices(c, 'finished', now, 'every recipient served') });
    }
  }

  /**
   * The governor (docs/contract.md §12): when the anti-ban strategy has paused one of the
   * campaign's numbers since the campaign last changed state (a restriction signal, a failure ratio
   * over the threshold), the whole campaign pauses and says why; the user decides when to resume
   * (a resume is a change of state, so the same pause does not pause it again).
   */
  private async governorPaused(c: CampaignRow, now: number): Promise<boolean> {
    const { store } = this.deps;
    for (const instanceId of JSON.parse(c.instance_ids) as string[]) {
      const pause = await store.antiban.pause(instanceId);
      if (!pause || pause.pausedUntil === null || pause.pausedUntil <= now) continue;
      if ((pause.lastRestrictionAt ?? 0) < Number(c.updated_at)) continue;
      const inst = await store.instances.find(instanceId);
      if (!inst?.antiban) continue;
      const notices = campaignNotices(c, 'autoPaused', now, `${inst.phone ?? instanceId}: ${pause.reason ?? 'restricted'}`);
      if (!(await store.campaigns.move(c.id, ['running'], 'paused', now, { notices }))) return true;
      this.deps.log.warn({ campaignId: c.id, instanceId, reason: pause.reason }, 'campaign paused by the anti-ban governor');
      return true;
    }
    return false;
  }
}
