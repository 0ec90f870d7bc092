// Campaigns (docs/contract.md §12): create from a template and a recipient list (JSON or CSV),
// start, pause, resume, cancel, and read the progress and each recipient's outcome. The runner
// (campaign-runner.ts) does the queueing.
import type { Clock } from '../clock.js';
import { errors } from '../errors.js';
import { newZaapId } from '../ids.js';
import { parsePhone } from '../domain/phone.js';
import { checkClockTime, checkTimeZone, parseCsv, templateVars, type CampaignSettings } from '../domain/campaign.js';
import type { CampaignsRepo } from '../store/campaigns-repo.js';
import type { InstancesRepo } from '../store/instances-repo.js';
import type { CampaignRecipientRow, CampaignRow, CampaignState } from '../store/schema.js';
import { parseScheduledAt } from '../domain/schedule.js';
import { campaignNotices, type CampaignChange } from './campaign-events.js';

export interface NewCampaign {
  name: string;
  message: string;
  instanceIds: string[];
  recipients?: { phone: string; vars?: Record<string, string> }[];
  recipientsCsv?: string;
  timeZone?: string;
  startAt?: string | number;
  endAt?: string | number;
  quietHours?: { from: string; to: string };
  dailyCap?: number;
  paceSeconds?: number;
}

export interface CampaignView {
  id: string;
  name: string;
  state: CampaignState;
  message: string;
  instanceIds: string[];
  settings: CampaignSettings;
  created: number;
  started: number | null;
  recipients: number;
  progress: Record<'pending' | 'queued' | 'sent' | 'delivered' | 'read' | 'failed' | 'skipped' | 'cancelled', number>;
}

const MAX_RECIPIENTS = 100_000;

export class CampaignsService {
  constructor(
    private readonly store: { campaigns: CampaignsRepo; instances: Pick<InstancesRepo, 'find'> },
    private readonly clock: Clock,
  ) {}

  async create(accountId: string, req: NewCampaign): Promise<CampaignView> {
    const now = this.clock.now();
    const instanceIds = [...new Set(req.instanceIds)];
    for (const id of instanceIds) {
      const inst = await this.store.instances.find(id);
      if (!inst || inst.accountId !== accountId) throw errors.instanceNotFound(); // another account's answers the same (docs/contract.md §2)
    }
    if ((req.recipients === undefined) === (req.recipientsCsv === undefined)) throw errors.invalidInput('recipients: give either `recipients` or `recipientsCsv`');
    const raw = req.recipients ?? parseCsv(req.recipientsCsv!).map(({ phone, ...vars }) => ({ phone: phone ?? '', vars }));
    if (raw.length === 0 || raw.length > MAX_RECIPIENTS) throw errors.invalidInput(`recipients: between 1 and ${MAX_RECIPIENTS}`);
    const needed = templateVars(req.message).filter((v) => v !== 'phone');
    const seen = new Set<string>();
    const recipients: CampaignRecipientRow[] = [];
    const id = newZaapId(now);
    raw.forEach((r, i) => {
      const phone = parsePhone(r.phone, `recipients[${i}].phone`);
      if (seen.has(phone)) return; // a number listed twice gets one message
      seen.add(phone);
      const vars = r.vars ?? {};
      for (const v of needed) if (!(v in vars)) throw errors.invalidInput(`recipients[${i}]: no value for {{${v}}}`);
      recipients.push({
        campaign_id: id,
        position: recipients.length + 1,
        phone,
        vars: JSON.stringify(vars),
        // Spread over the numbers, each recipient always served by the same one.
        instance_id: instanceIds[recipients.length % instanceIds.length]!,
        state: 'pending',
        message_id: null,
        zaap_id: null,
        queued_at: null,
      });
    });
    if (req.quietHours) {
      checkClockTime(req.quietHours.from, 'quietHours.from');
      checkClockTime(req.quietHours.to, 'quietHours.to');
    }
    const settings: CampaignSettings = {
      timeZone: checkTimeZone(req.timeZone ?? 'UTC'),
      startAt: req.startAt === undefined ? null : parseScheduledAt(req.startAt, now, 'startAt'),
      endAt: req.endAt === undefined ? null : parseScheduledAt(req.endAt, now, 'endAt'),
      quietHours: req.quietHours ?? null,
      dailyCap: req.dailyCap ?? 200,
      paceMs: (req.paceSeconds ?? 0) * 1000,
    };
    if (settings.startAt !== null && settings.endAt !== null && settings.endAt <= settings.startAt) throw errors.invalidInput('endAt: must be after startAt');
    const row: CampaignRow = {
      id,
      account_id: accountId,
      name: req.name,
      template: req.message,
      instance_ids: JSON.stringify(instanceIds),
      state: 'draft',
      settings: JSON.stringify(settings),
      started_at: null,
      created_at: now,
      updated_at: now,
    };
    await this.store.campaigns.create(row, recipients);
    return this.view(row);
  }

  async list(accountId: string): Promise<CampaignView[]> {
    return Promise.all((await this.store.campaigns.listOfAccount(accountId)).map((c) => this.view(c)));
  }

  async get(accountId: string, id: string): Promise<CampaignView> {
    return this.view(await this.own(accountId, id));
  }

  async start(accountId: string, id: string): Promise<CampaignView> {
    const c = await this.own(accountId, id);
    const now = this.clock.now();
    // The change's events are recorded with it, and reported by each number's owner (campaign-events.ts).
    if (!(await this.store.campaigns.move(id, ['draft'], 'running', now, { startedAt: now, notices: campaignNotices(c, 'started', now) }))) throw errors.conflict('Campaign already started', `state: ${c.state}`);
    return this.get(accountId, id);
  }

  async pause(accountId: string, id: string): Promise<CampaignView> {
    return this.transition(accountId, id, ['running'], 'paused', 'paused');
  }

  async resume(accountId: string, id: string): Promise<CampaignView> {
    return this.transition(accountId, id, ['paused'], 'running', 'resumed');
  }

  /** Cancelled: nothing more is queued, and its messages not yet being sent leave the queue. */
  async cancel(accountId: string, id: string): Promise<CampaignView> {
    const view = await this.transition(accountId, id, ['draft', 'running', 'paused'], 'cancelled', 'cancelled');
    await this.store.campaigns.dropWaiting(id);
    return this.get(accountId, view.id);
  }

  async recipients(accountId: string, id: string, pageSize: number, after: number) {
    await this.own(accountId, id);
    const rows = await this.store.campaigns.outcomes(id, pageSize + 1, after);
    const page = rows.slice(0, pageSize);
    return {
      recipients: page.map((r) => ({
        position: Number(r.position),
        phone: r.phone,
        instanceId: r.instance_id,
        outcome: outcomeOf(r.state, r.message_state, r.wa_status, r.error_code),
        messageId: r.message_id,
        queuedAt: r.queued_at === null ? null : Number(r.queued_at),
        sentAt: r.sent_at === null ? null : Number(r.sent_at),
        error: r.error,
        errorCode: r.error_code,
      })),
      next: rows.length > pageSize ? Number(page[page.length - 1]!.position) : null,
    };
  }

  private async transition(accountId: string, id: string, from: CampaignState[], to: CampaignState, change: CampaignChange): Promise<CampaignView> {
    const c = await this.own(accountId, id);
    const now = this.clock.now();
    if (!(await this.store.campaigns.move(id, from, to, now, { notices: campaignNotices(c, change, now) }))) throw errors.conflict(`Campaign is ${c.state}`, `state: ${c.state}; this needs ${from.join(' or ')}`);
    return this.get(accountId, id);
  }

  private async own(accountId: string, id: string): Promise<CampaignRow> {
    const c = await this.store.campaigns.find(id);
    if (!c || c.account_id !== accountId) throw errors.notFound('Campaign not found');
    return c;
  }

  private async view(c: CampaignRow): Promise<CampaignView> {
    const progress: CampaignView['progress'] = { pending: 0, queued: 0, sent: 0, delivered: 0, read: 0, failed: 0, skipped: 0, cancelled: 0 };
    let total = 0;
    for (const t of await this.store.campaigns.tally(c.id)) {
      total += t.n;
      const o = outcomeOf(t.state, t.message_state, t.wa_status, t.error_code);
      progress[o] += t.n;
      // Cumulative, as a user reads them: a read message was delivered and sent.
      if (o === 'read') progress.delivered += t.n;
      if (o === 'read' || o === 'delivered') progress.sent += t.n;
    }
    return {
      id: c.id,
      name: c.name,
      state: c.state,
      message: c.template,
      instanceIds: JSON.parse(c.instance_ids) as string[],
      settings: JSON.parse(c.settings) as CampaignSettings,
      created: Number(c.created_at),
      started: c.started_at === null ? null : Number(c.started_at),
      recipients: total,
      progress,
    };
  }
}

type Outcome = keyof CampaignView['progress'];

function outcomeOf(state: string, messageState: string | null, waStatus: string | null, errorCode: string | null): Outcome {
  if (state === 'pending') return 'pending';
  if (state === 'skipped') return 'skipped';
  if (messageState === null) return 'cancelled';
  if (messageState === 'queued' || messageState === 'in_flight') return 'queued';
  if (messageState === 'failed') return errorCode === 'OPTED_OUT' ? 'skipped' : errorCode === 'CANCELLED' ? 'cancelled' : 'failed';
  if (waStatus === 'READ' || waStatus === 'PLAYED') return 'read';
  if (waStatus === 'RECEIVED') return 'delivered';
  return 'sent';
}
