// Campaigns (022): the campaign rows, their recipients, and the one write that matters for "never
// twice": a recipient moves pending → queued in the same transaction that inserts its message.
// The notices of the campaign's changes (029) are recorded with the change they report.
import { sql, type Kysely } from 'kysely';
import type { CampaignNoticeRow, CampaignRecipientRow, CampaignRow, CampaignState, DB, NewCampaignNotice, NewMessageRow } from './schema.js';

/** A recipient's outcome, read through its queued message. */
export interface RecipientOutcome {
  position: number;
  phone: string;
  instance_id: string;
  state: CampaignRecipientRow['state'];
  message_id: string | null;
  queued_at: number | null;
  message_state: string | null;
  wa_status: string | null;
  error: string | null;
  error_code: string | null;
  sent_at: number | null;
}

export class CampaignsRepo {
  constructor(private readonly db: Kysely<DB>) {}

  async create(campaign: CampaignRow, recipients: readonly CampaignRecipientRow[]): Promise<void> {
    await this.db.transaction().execute(async (trx) => {
      await trx.insertInto('campaigns').values(campaign).execute();
      for (let i = 0; i < recipients.length; i += 200) await trx.insertInto('campaign_recipients').values(recipients.slice(i, i + 200)).execute();
    });
  }

  find(id: string): Promise<CampaignRow | undefined> {
    return this.db.selectFrom('campaigns').selectAll().where('id', '=', id).executeTakeFirst();
  }

  listOfAccount(accountId: string): Promise<CampaignRow[]> {
    return this.db.selectFrom('campaigns').selectAll().where('account_id', '=', accountId).orderBy('created_at').execute();
  }

  /**
   * Moves the campaign from one of `from` to `to`; false when it was in none of them. `notices`, the
   * change's report on each of its numbers, are recorded in the same transaction: a change that is
   * committed is reported, and one that is refused (or never made) is not.
   */
  async move(id: string, from: readonly CampaignState[], to: CampaignState, at: number, extra: { startedAt?: number; notices?: readonly NewCampaignNotice[] } = {}): Promise<boolean> {
    return this.db.transaction().execute(async (trx) => {
      let q = trx.updateTable('campaigns').set({ state: to, updated_at: at }).where('id', '=', id).where('state', 'in', [...from]);
      if (extra.startedAt !== undefined) q = q.set({ started_at: extra.startedAt });
      const r = await q.executeTakeFirst();
      if (Number(r.numUpdatedRows) === 0) return false;
      if (extra.notices && extra.notices.length > 0) await trx.insertInto('campaign_notices').values([...extra.notices]).execute();
      return true;
    });
  }

  /** The numbers with campaign notices still to report (few: a notice lives one runner step). */
  async noticeNumbers(): Promise<string[]> {
    const rows = await this.db.selectFrom('campaign_notices').select('sender_instance_id').distinct().execute();
    return rows.map((r) => r.sender_instance_id);
  }

  /** The number's notices still to report, in the order the changes were committed. */
  notices(instanceId: string, limit: number): Promise<CampaignNoticeRow[]> {
    return this.db.selectFrom('campaign_notices').selectAll().where('sender_instance_id', '=', instanceId).orderBy('seq').limit(limit).execute();
  }

  /** Reported: the notices leave the table. */
  async noticesDone(seqs: readonly number[]): Promise<void> {
    if (seqs.length === 0) return;
    await this.db.deleteFrom('campaign_notices').where('seq', 'in', [...seqs]).execute();
  }

  running(): Promise<CampaignRow[]> {
    return this.db.selectFrom('campaigns').selectAll().where('state', '=', 'running').execute();
  }

  nextPending(campaignId: string, instanceId: string): Promise<CampaignRecipientRow | undefined> {
    return this.db
      .selectFrom('campaign_recipients')
      .selectAll()
      .where('campaign_id', '=', campaignId)
      .where('instance_id', '=', instanceId)
      .where('state', '=', 'pending')
      .orderBy('position')
      .limit(1)
      .executeTakeFirst();
  }

  /**
   * The campaign's latest message from this number: when it was queued (the campaign's pacing) and
   * whether it is still waiting to be sent. Undefined before the first. A number's recipients are
   * queued in position order (nextPending; none goes back to pending), so the latest is the highest
   * queued position: one step back along campaign_recipients_next. The runner asks every step
   * (100 ms) for every number; ordering by `queued_at` instead sorted every recipient the number had
   * queued, ~10 ms a step at 10,000 of them and ~38 ms at 40,000 (issue #25).
   */
  async lastQueued(campaignId: string, instanceId: string): Promise<{ queuedAt: number; waiting: boolean } | undefined> {
    const last = await this.db
      .selectFrom('campaign_recipients')
      .select(['message_id', 'queued_at'])
      .where('campaign_id', '=', campaignId)
      .where('instance_id', '=', instanceId)
      .where('state', '=', 'queued')
      .orderBy('position', 'desc')
      .limit(1)
      .executeTakeFirst();
    if (!last?.message_id) return undefined;
    const m = await this.db.selectFrom('messages').select('state').where('instance_id', '=', instanceId).where('message_id', '=', last.message_id).executeTakeFirst();
    return { queuedAt: Number(last.queued_at ?? 0), waiting: m !== undefined && (m.state === 'queued' || m.state === 'in_flight') };
  }

  /** Recipients this number was given since `since` (the daily cap): a range of campaign_recipients_sent_since (029). */
  async queuedSince(campaignId: string, instanceId: string, since: number): Promise<number> {
    const r = await this.db
      .selectFrom('campaign_recipients')
      .select((eb) => eb.fn.countAll<number>().as('n'))
      .where('campaign_id', '=', campaignId)
      .where('instance_id', '=', instanceId)
      .where('state', '=', 'queued')
      .where('queued_at', '>=', since)
      .executeTakeFirstOrThrow();
    return Number(r.n);
  }

  /**
   * pending → queued and the message inserted, in one transaction: after a crash either both are on
   * disk or neither. False when the recipient was no longer pending (another node, a cancel).
   */
  async enqueue(campaignId: string, phone: string, message: NewMessageRow, at: number): Promise<{ seq: number } | null> {
    return this.db.transaction().execute(async (trx) => {
      const moved = await trx
        .updateTable('campaign_recipients')
        .set({ state: 'queued', message_id: message.message_id, zaap_id: message.zaap_id, queued_at: at })
        .where('campaign_id', '=', campaignId)
        .where('phone', '=', phone)
        .where('state', '=', 'pending')
        .executeTakeFirst();
      if (Number(moved.numUpdatedRows) === 0) return null;
      const row = await trx.insertInto('messages').values(message).returning('seq').executeTakeFirstOrThrow();
      return { seq: Number(row.seq) };
    });
  }

  async skip(campaignId: string, phones: readonly string[]): Promise<void> {
    if (phones.length === 0) return;
    await this.db.updateTable('campaign_recipients').set({ state: 'skipped' }).where('campaign_id', '=', campaignId).where('phone', 'in', [...phones]).where('state', '=', 'pending').execute();
  }

  async pendingCount(campaignId: string): Promise<number> {
    const r = await this.db.selectFrom('campaign_recipients').select((eb) => eb.fn.countAll<number>().as('n')).where('campaign_id', '=', campaignId).where('state', '=', 'pending').executeTakeFirstOrThrow();
    return Number(r.n);
  }

  /** Every recipient with its message's state, a page at a time by position. */
  outcomes(campaignId: string, limit: number, afterPosition: number): Promise<RecipientOutcome[]> {
    return this.db
      .selectFrom('campaign_recipients as r')
      .leftJoin('messages as m', (j) => j.onRef('m.instance_id', '=', 'r.instance_id').onRef('m.message_id', '=', 'r.message_id'))
      .select([
        'r.position', 'r.phone', 'r.instance_id', 'r.state', 'r.message_id', 'r.queued_at',
        'm.state as message_state', 'm.wa_status', 'm.error', 'm.error_code', 'm.sent_at',
      ])
      .where('r.campaign_id', '=', campaignId)
      .where('r.position', '>', afterPosition)
      .orderBy('r.position')
      .limit(limit)
      .execute() as Promise<RecipientOutcome[]>;
  }

  /** Counts by (recipient state, message state, network status, error code), for the progress figures. */
  async tally(campaignId: string): Promise<{ state: string; message_state: string | null; wa_status: string | null; error_code: string | null; n: number }[]> {
    const rows = await this.db
      .selectFrom('campaign_recipients as r')
      .leftJoin('messages as m', (j) => j.onRef('m.instance_id', '=', 'r.instance_id').onRef('m.message_id', '=', 'r.message_id'))
      .select(['r.state', 'm.state as message_state', 'm.wa_status', 'm.error_code', sql<number>`count(*)`.as('n')])
      .where('r.campaign_id', '=', campaignId)
      .groupBy(['r.state', 'm.state', 'm.wa_status', 'm.error_code'])
      .execute();
    return rows.map((r) => ({ ...r, n: Number(r.n) }));
  }

  /** Cancel: the campaign's messages not yet claimed leave the queue; answers how many. */
  async dropWaiting(campaignId: string): Promise<number> {
    const rows = await this.db.selectFrom('campaign_recipients').select(['instance_id', 'message_id']).where('campaign_id', '=', campaignId).where('state', '=', 'queued').execute();
    let n = 0;
    for (const r of rows) {
      if (!r.message_id) continue;
      const d = await this.db.deleteFrom('messages').where('instance_id', '=', r.instance_id).where('message_id', '=', r.message_id).where('state', '=', 'queued').executeTakeFirst();
      n += Number(d.numDeletedRows);
    }
    return n;
  }
}
