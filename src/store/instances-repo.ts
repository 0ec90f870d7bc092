// Instances and their recorded status history. Status changes arriving in the same tick share one
// transaction: a restoring fleet moves hundreds of instances at once, and each commit is an fsync.
// Use cases read and change instances as domain objects (find, listOfAccount, change); the row
// methods (findById, update, …) serve the engine and the store's own tests.
import type { Kysely } from 'kysely';
import type { Instance, InstanceChanges, InstanceStatus } from '../domain/instance.js';
import type { DB, InstancePatch, InstanceRow, NewInstanceRow } from './schema.js';
import { WriteBatcher } from './write-batcher.js';

export interface StatusChange {
  status: InstanceStatus;
  reason: string | null;
  at: number;
}

interface StatusWrite {
  id: string;
  change: StatusChange;
  extra: InstancePatch;
}

// 4 bound values per history row: far below SQLite's and PostgreSQL's parameter limits.
const ROWS_PER_STATEMENT = 200;
const IDS_PER_QUERY = 500;

export class InstancesRepo {
  private readonly statuses: WriteBatcher<StatusWrite, void>;

  constructor(private readonly db: Kysely<DB>) {
    this.statuses = new WriteBatcher((writes) => this.flushStatuses(writes));
  }

  /**
   * Inserts the instance; false (nothing written) when its account already has `cap` instances
   * (0 = no cap). The account's row is locked first (a no-op update), so concurrent creations for
   * one account are counted one after another on PostgreSQL too.
   */
  async create(row: NewInstanceRow, cap = 0): Promise<boolean> {
    return this.db.transaction().execute(async (trx) => {
      if (cap > 0) {
        await trx.updateTable('accounts').set((eb) => ({ name: eb.ref('name') })).where('id', '=', row.account_id).execute();
        const r = await trx.selectFrom('instances').select((eb) => eb.fn.countAll<number>().as('n')).where('account_id', '=', row.account_id).executeTakeFirstOrThrow();
        if (Number(r.n) >= cap) return false;
      }
      await trx.insertInto('instances').values(row).execute();
      await trx
        .insertInto('instance_status_history')
        .values({ instance_id: row.id, status: row.status, reason: row.status_reason ?? null, at: row.status_since })
        .execute();
      return true;
    });
  }

  findById(id: string): Promise<InstanceRow | undefined> {
    return this.db.selectFrom('instances').selectAll().where('id', '=', id).executeTakeFirst();
  }

  /** The instance as a domain object (reads through findById, the one query for an instance). */
  async find(id: string): Promise<Instance | undefined> {
    const row = await this.findById(id);
    return row && toInstance(row);
  }

  async listOfAccount(accountId: string): Promise<Instance[]> {
    return (await this.listByAccount(accountId)).map(toInstance);
  }

  /** Applies settings given in domain words; false for an unknown id. */
  change(id: string, changes: InstanceChanges): Promise<boolean> {
    return this.update(id, toInstancePatch(changes));
  }

  listByAccount(accountId: string): Promise<InstanceRow[]> {
    return this.db.selectFrom('instances').selectAll().where('account_id', '=', accountId).orderBy('created_at').execute();
  }

  /** Instances that hold credentials, i.e. should be reconnected when the gateway starts. */
  listPaired(): Promise<InstanceRow[]> {
    return this.db
      .selectFrom('instances')
      .selectAll()
      .where('paired_at', 'is not', null)
      .where('status', 'not in', ['logged_out', 'banned', 'replaced'])
      .execute();
  }

  async update(id: string, patch: InstancePatch): Promise<boolean> {
    const r = await this.db.updateTable('instances').set(patch).where('id', '=', id).executeTakeFirst();
    return Number(r.numUpdatedRows) > 0;
  }

  /**
   * Records a state change and its reason; both the current state and the history move together.
   * Resolves after the commit; a change for an instance deleted meanwhile is dropped.
   */
  setStatus(id: string, change: StatusChange, extra: InstancePatch = {}): Promise<void> {
    return this.statuses.submit({ id, change, extra });
  }

  /** Resolves once every status change submitted so far is committed. */
  drain(): Promise<void> {
    return this.statuses.drain();
  }

  private async flushStatuses(writes: readonly StatusWrite[]): Promise<void[]> {
    await this.db.transaction().execute(async (trx) => {
      // A change racing the deletion of its instance must not fail everyone else's (the history's
      // foreign key would reject the whole batch).
      const ids = [...new Set(writes.map((w) => w.id))];
      const alive = new Set<string>();
      for (let i = 0; i < ids.length; i += IDS_PER_QUERY) {
        const rows = await trx.selectFrom('instances').select('id').where('id', 'in', ids.slice(i, i + IDS_PER_QUERY)).execute();
        for (const r of rows) alive.add(r.id);
      }
      const kept = writes.filter((w) => alive.has(w.id));
      // The last change of an instance in the batch is its current state; every change is history.
      const last = new Map<string, StatusWrite>();
      const extras = new Map<string, InstancePatch>();
      for (const w of kept) {
        last.set(w.id, w);
        extras.set(w.id, { ...extras.get(w.id), ...w.extra });
      }
      for (const [id, w] of last) {
        await trx
          .updateTable('instances')
          .set({ ...extras.get(id), status: w.change.status, status_reason: w.change.reason, status_since: w.change.at })
          .where('id', '=', id)
          .execute();
      }
      for (let i = 0; i < kept.length; i += ROWS_PER_STATEMENT) {
        await trx
          .insertInto('instance_status_history')
          .values(kept.slice(i, i + ROWS_PER_STATEMENT).map((w) => ({ instance_id: w.id, status: w.change.status, reason: w.change.reason, at: w.change.at })))
          .execute();
      }
    });
    return writes.map((): void => undefined);
  }

  history(id: string, limit = 50): Promise<StatusChange[]> {
    return this.db
      .selectFrom('instance_status_history')
      .select(['status', 'reason', 'at'])
      .where('instance_id', '=', id)
      .orderBy('id', 'desc')
      .limit(limit)
      .execute();
  }

  async delete(id: string): Promise<boolean> {
    return this.db.transaction().execute(async (trx) => {
      // Its broker sinks (023-event-sinks has no foreign key: a scope is an instance or an account).
      await trx.deleteFrom('event_sinks').where('scope', '=', id).execute();
      const r = await trx.deleteFrom('instances').where('id', '=', id).executeTakeFirst();
      return Number(r.numDeletedRows) > 0;
    });
  }
}

const flag = (on: boolean): number => (on ? 1 : 0);

/** The one place an instance row becomes a domain object: 0/1 flags to booleans, columns to names. */
export function toInstance(row: InstanceRow): Instance {
  return {
    id: row.id,
    accountId: row.account_id,
    name: row.name,
    tokenHash: row.token_hash,
    status: row.status,
    statusReason: row.status_reason,
    statusSince: Number(row.status_since),
    phone: row.phone,
    lid: row.lid,
    pairedAt: row.paired_at === null ? null : Number(row.paired_at),
    createdAt: Number(row.created_at),
    antiban: row.antiban === 1,
    disableEnqueueWhenDisconnected: row.disable_enqueue_when_disconnected === 1,
    notifySentByMe: row.notify_sent_by_me === 1,
    listMode: row.list_mode,
    listReplyHint: row.list_reply_hint,
    webhookSecret: row.webhook_secret,
    webhookSecretPrevious: row.webhook_secret_previous,
    autoReadMessage: row.auto_read_message === 1,
    autoReadStatus: row.auto_read_status === 1,
    callRejectAuto: row.call_reject_auto === 1,
    callRejectMessage: row.call_reject_message,
    proxyUrl: row.proxy_url,
    proxyEnabled: row.proxy_enabled === 1,
    historyImport: row.history_import === 1,
    historyDays: Number(row.history_days),
    historyWebhook: row.history_webhook === 1,
  };
}

/** A new instance as the row that stores it (the cluster columns start empty). */
export function toNewInstanceRow(i: Instance): NewInstanceRow {
  return {
    id: i.id,
    account_id: i.accountId,
    name: i.name,
    token_hash: i.tokenHash,
    status: i.status,
    status_reason: i.statusReason,
    status_since: i.statusSince,
    phone: i.phone,
    lid: i.lid,
    paired_at: i.pairedAt,
    created_at: i.createdAt,
    antiban: flag(i.antiban),
    disable_enqueue_when_disconnected: flag(i.disableEnqueueWhenDisconnected),
    notify_sent_by_me: flag(i.notifySentByMe),
    list_mode: i.listMode,
    list_reply_hint: i.listReplyHint,
    webhook_secret: i.webhookSecret,
    webhook_secret_previous: i.webhookSecretPrevious,
    auto_read_message: flag(i.autoReadMessage),
    auto_read_status: flag(i.autoReadStatus),
    call_reject_auto: flag(i.callRejectAuto),
    call_reject_message: i.callRejectMessage,
    proxy_url: i.proxyUrl,
    proxy_enabled: flag(i.proxyEnabled),
    history_import: flag(i.historyImport),
    history_days: i.historyDays,
    history_webhook: flag(i.historyWebhook),
  };
}

/** Domain changes as the columns they set (only the keys given). */
export function toInstancePatch(c: InstanceChanges): InstancePatch {
  const p: InstancePatch = {};
  if (c.name !== undefined) p.name = c.name;
  if (c.tokenHash !== undefined) p.token_hash = c.tokenHash;
  if (c.antiban !== undefined) p.antiban = flag(c.antiban);
  if (c.disableEnqueueWhenDisconnected !== undefined) p.disable_enqueue_when_disconnected = flag(c.disableEnqueueWhenDisconnected);
  if (c.notifySentByMe !== undefined) p.notify_sent_by_me = flag(c.notifySentByMe);
  if (c.listMode !== undefined) p.list_mode = c.listMode;
  if (c.listReplyHint !== undefined) p.list_reply_hint = c.listReplyHint;
  if (c.webhookSecret !== undefined) p.webhook_secret = c.webhookSecret;
  if (c.webhookSecretPrevious !== undefined) p.webhook_secret_previous = c.webhookSecretPrevious;
  if (c.autoReadMessage !== undefined) p.auto_read_message = flag(c.autoReadMessage);
  if (c.autoReadStatus !== undefined) p.auto_read_status = flag(c.autoReadStatus);
  if (c.callRejectAuto !== undefined) p.call_reject_auto = flag(c.callRejectAuto);
  if (c.callRejectMessage !== undefined) p.call_reject_message = c.callRejectMessage;
  if (c.proxyUrl !== undefined) p.proxy_url = c.proxyUrl;
  if (c.proxyEnabled !== undefined) p.proxy_enabled = flag(c.proxyEnabled);
  if (c.historyImport !== undefined) p.history_import = flag(c.historyImport);
  if (c.historyDays !== undefined) p.history_days = c.historyDays;
  if (c.historyWebhook !== undefined) p.history_webhook = flag(c.historyWebhook);
  return p;
}
