// Webhook deliveries: the outbox's events committed with their deliveries, the dispatcher's lane
// reads, batched outcome writes, the replay API's listing and requeue, and the retention sweep.
import { sql, type Kysely } from 'kysely';
import type { DB, DeliveryStatus } from './schema.js';
import type { WebhookKind } from '../events/vocabulary.js';
import type { EventFilter } from '../domain/event-filter.js';
import { EventFiltersRepo } from './event-filters-repo.js';
import { applyCopies, noCopies, type MessageCopies } from './message-copies.js';

/** What the outbox needs to know about an instance to route and sign its events. */
export interface InstanceDeliveryContext {
  instanceId: string;
  phone: string | null;
  notifySentByMe: boolean;
  /** Current secret first, then the previous one while a rotation is in progress. */
  secrets: string[];
  /** Enabled webhook URLs by kind (disabled and unset kinds are absent). */
  urls: ReadonlyMap<WebhookKind, string>;
  /** Filters by target (`webhooks`, `sink:<kind>`; 027); a target without one takes every event. */
  filters?: ReadonlyMap<string, EventFilter> | undefined;
}

export interface NewOutboxEvent {
  id: string;
  instanceId: string;
  /** The event type (ReceivedCallback, …). */
  type: string;
  /** The exact JSON body every attempt sends. */
  body: string;
  createdAt: number;
}

/** A network message id an event reports (at most one event per id and instance, ever). */
export interface OnceKey {
  instanceId: string;
  messageId: string;
  /** The event reporting it, or null when the event went nowhere (no webhook for its kind). */
  eventId: string | null;
  at: number;
}

export interface NewDelivery {
  id: string;
  eventId: string;
  instanceId: string;
  kind: WebhookKind;
  url: string;
  createdAt: number;
}

/** A delivery whose attempt is due, with what the attempt needs. */
export interface DueDelivery {
  id: string;
  eventId: string;
  instanceId: string;
  kind: WebhookKind;
  /** The event type (ReceivedCallback, …): a broker sink's routing key ends with it. */
  type: string;
  url: string;
  attempts: number;
  body: string;
  secrets: string[];
  /** When the event was committed (ms): the delivery's lag is measured from it. */
  createdAt: number;
}

/** Deliveries still to attempt (pending or retrying), and the oldest one's commit time. */
interface DeliveryBacklog {
  pending: number;
  oldestCreatedAt: number | null;
}

export type DeliveryOutcome =
  | { id: string; result: 'delivered'; httpStatus: number | null; at: number }
  | { id: string; result: 'retrying'; httpStatus: number | null; error: string; nextAttemptAt: number; at: number }
  | { id: string; result: 'failed'; httpStatus: number | null; error: string; at: number };

interface LaneHead {
  instanceId: string;
  url: string;
  nextAttemptAt: number;
}

export interface DeliveryRecord {
  seq: number;
  id: string;
  eventId: string;
  type: string;
  kind: WebhookKind;
  url: string;
  status: DeliveryStatus;
  attempts: number;
  nextAttemptAt: number | null;
  lastStatus: number | null;
  lastError: string | null;
  createdAt: number;
  updatedAt: number;
  body: string;
}

// Rows per multi-row statement: far below SQLite's 32,766 bound variables with 11 columns.
const CHUNK = 1000;

function chunks<T>(items: readonly T[], size = CHUNK): T[][] {
  const out: T[][] = [];
  for (let i = 0; i < items.length; i += size) out.push(items.slice(i, i + size));
  return out;
}

function secretsOf(current: string, previous: string | null): string[] {
  return previous === null || previous === current ? [current] : [current, previous];
}

export class DeliveriesRepo {
  constructor(private readonly db: Kysely<DB>) {}

  async contexts(instanceIds: readonly string[]): Promise<Map<string, InstanceDeliveryContext>> {
    const out = new Map<string, InstanceDeliveryContext>();
    if (instanceIds.length === 0) return out;
    const ids = [...new Set(instanceIds)];
    const rows = await this.db
      .selectFrom('instances')
      .select(['id', 'phone', 'notify_sent_by_me', 'webhook_secret', 'webhook_secret_previous'])
      .where('id', 'in', ids)
      .execute();
    const hooks = await this.db
      .selectFrom('webhooks')
      .select(['instance_id', 'kind', 'url'])
      .where('instance_id', 'in', ids)
      .where('disabled_reason', 'is', null)
      .execute();
    const filters = await new EventFiltersRepo(this.db).forInstances(ids);
    for (const r of rows) {
      out.set(r.id, {
        instanceId: r.id,
        phone: r.phone,
        notifySentByMe: r.notify_sent_by_me === 1,
        secrets: secretsOf(r.webhook_secret, r.webhook_secret_previous),
        urls: new Map(hooks.filter((h) => h.instance_id === r.id).map((h) => [h.kind, h.url])),
        filters: filters.get(r.id),
      });
    }
    return out;
  }

  /**
   * Commits events and their deliveries in one transaction (one fsync for the whole batch). Events
   * whose once-key an earlier commit (or an earlier row of this one) recorded are left out with
   * their deliveries; their ids are returned. `copies`, the received messages' chat copy and
   * remembered messages, go in the same transaction (message-copies.ts).
   */
  async commit(events: readonly NewOutboxEvent[], deliveries: readonly NewDelivery[], once: readonly OnceKey[] = [], copies?: MessageCopies): Promise<ReadonlySet<string>> {
    const repeated = new Set<string>();
    if (events.length === 0 && once.length === 0 && noCopies(copies)) return repeated;
    await this.db.transaction().execute(async (trx) => {
      if (copies !== undefined) await applyCopies(trx, copies);
      if (once.length > 0) {
        const fresh = new Set<string>();
        for (const part of chunks(once)) {
          const rows = await trx
            .insertInto('inbound_messages')
            .values(part.map((k) => ({ instance_id: k.instanceId, message_id: k.messageId, received_at: k.at })))
            .onConflict((oc) => oc.columns(['instance_id', 'message_id']).doNothing())
            .returning(['instance_id', 'message_id'])
            .execute();
          for (const r of rows) fresh.add(`${r.instance_id}\u0000${r.message_id}`);
        }
        for (const k of once) {
          const key = `${k.instanceId}\u0000${k.messageId}`;
          // The first occurrence takes the fresh row; a second one in the same batch is a repeat too.
          if (fresh.delete(key)) continue;
          if (k.eventId !== null) repeated.add(k.eventId);
        }
      }
      const kept = repeated.size === 0 ? events : events.filter((e) => !repeated.has(e.id));
      const keptDeliveries = repeated.size === 0 ? deliveries : deliveries.filter((d) => !repeated.has(d.eventId));
      for (const part of chunks(kept)) {
        await trx
          .insertInto('events')
          .values(part.map((e) => ({ id: e.id, instance_id: e.instanceId, kind: e.type, payload: e.body, created_at: e.createdAt })))
          .execute();
      }
      for (const part of chunks(keptDeliveries)) {
        await trx
          .insertInto('webhook_deliveries')
          .values(
            part.map((d) => ({
              id: d.id,
              event_id: d.eventId,
              instance_id: d.instanceId,
              kind: d.kind,
              url: d.url,
              status: 'pending',
              attempts: 0,
              next_attempt_at: d.createdAt,
              last_status: null,
              last_error: null,
              created_at: d.createdAt,
              updated_at: d.createdAt,
            })),
          )
          .execute();
      }
    });
    return repeated;
  }

  /** Forgets reported message ids older than `before` (the network redelivers nothing that old); returns how many. */
  async pruneOnceKeys(before: number, limit: number): Promise<number> {
    const rows = await this.db.selectFrom('inbound_messages').select(['instance_id', 'message_id']).where('received_at', '<', before).limit(limit).execute();
    if (rows.length === 0) return 0;
    await this.db.transaction().execute(async (trx) => {
      for (const r of rows) {
        await trx.deleteFrom('inbound_messages').where('instance_id', '=', r.instance_id).where('message_id', '=', r.message_id).execute();
      }
    });
    return rows.length;
  }

  /** Every lane with a delivery still to attempt, and when its earliest one is due. */
  async lanes(): Promise<LaneHead[]> {
    const rows = await this.db
      .selectFrom('webhook_deliveries')
      .select(['instance_id', 'url', (eb) => eb.fn.min<number>('next_attempt_at').as('next')])
      .where('next_attempt_at', 'is not', null)
      .groupBy(['instance_id', 'url'])
      .execute();
    return rows.map((r) => ({ instanceId: r.instance_id, url: r.url, nextAttemptAt: Number(r.next) }));
  }

  /** A lane's due deliveries in the order they should go: earliest due first, then event order. */
  async due(instanceId: string, url: string, now: number, limit: number): Promise<DueDelivery[]> {
    const rows = await this.laneRows(instanceId, url).where('d.next_attempt_at', '<=', now).orderBy('d.next_attempt_at').orderBy('d.seq').limit(limit).execute();
    return rows.map((r) => dueDelivery(r, instanceId, url));
  }

  /**
   * A strictly ordered lane's next deliveries (a broker sink, docs/contract.md §5b): in event order
   * only, and none while its head waits for a retry, so nothing overtakes a delivery being retried.
   * Also returns when the head is due when it is not yet.
   */
  async dueInOrder(instanceId: string, url: string, now: number, limit: number): Promise<{ due: DueDelivery[]; headAt: number | null }> {
    const rows = await this.laneRows(instanceId, url).orderBy('d.seq').limit(limit).execute();
    const due: DueDelivery[] = [];
    for (const r of rows) {
      const at = Number(r.next_attempt_at);
      if (at > now) return { due, headAt: due.length === 0 ? at : null };
      due.push(dueDelivery(r, instanceId, url));
    }
    return { due, headAt: null };
  }

  /** The deliveries of one lane that still have an attempt to make, with their events and secrets. */
  private laneRows(instanceId: string, url: string) {
    return this.db
      .selectFrom('webhook_deliveries as d')
      .innerJoin('events as e', 'e.id', 'd.event_id')
      .innerJoin('instances as i', 'i.id', 'd.instance_id')
      .select(['d.id', 'd.event_id', 'd.kind', 'd.attempts', 'd.created_at', 'd.next_attempt_at', 'e.kind as type', 'e.payload', 'i.webhook_secret', 'i.webhook_secret_previous'])
      .where('d.instance_id', '=', instanceId)
      .where('d.url', '=', url)
      .where('d.next_attempt_at', 'is not', null);
  }

  /** For /metrics: how many deliveries wait and since when (reads the partial lane index's rows only). */
  async backlog(): Promise<DeliveryBacklog> {
    const row = await this.db
      .selectFrom('webhook_deliveries')
      .select((eb) => [eb.fn.countAll<number>().as('n'), eb.fn.min<number>('created_at').as('oldest')])
      .where('next_attempt_at', 'is not', null)
      .where('url', 'not like', 'sink:%')
      .executeTakeFirst();
    return { pending: Number(row?.n ?? 0), oldestCreatedAt: row?.oldest === null || row?.oldest === undefined ? null : Number(row.oldest) };
  }

  /** For /metrics: deliveries still to publish per broker sink (their url is `sink:<kind>`). */
  async sinkBacklog(): Promise<Map<string, number>> {
    const rows = await this.db
      .selectFrom('webhook_deliveries')
      .select(['url', (eb) => eb.fn.countAll<number>().as('n')])
      .where('next_attempt_at', 'is not', null)
      .where('url', 'like', 'sink:%')
      .groupBy('url')
      .execute();
    return new Map(rows.map((r) => [r.url.slice('sink:'.length), Number(r.n)]));
  }

  /** When the lane's next not-yet-due delivery becomes due, or null when it has none. */
  async nextAttemptAt(instanceId: string, url: string, after: number): Promise<number | null> {
    const row = await this.db
      .selectFrom('webhook_deliveries')
      .select((eb) => eb.fn.min<number>('next_attempt_at').as('next'))
      .where('instance_id', '=', instanceId)
      .where('url', '=', url)
      .where('next_attempt_at', 'is not', null)
      .where('next_attempt_at', '>', after)
      .executeTakeFirst();
    return row?.next === null || row?.next === undefined ? null : Number(row.next);
  }

  /**
   * Records attempt outcomes in one transaction, in the order given; runs of successes with the
   * same status become one statement (at thousands per second they are nearly all successes).
   */
  async record(outcomes: readonly DeliveryOutcome[]): Promise<void> {
    if (outcomes.length === 0) return;
    await this.db.transaction().execute(async (trx) => {
      let run: { ids: string[]; httpStatus: number | null; at: number } | null = null;
      const flushRun = async (): Promise<void> => {
        if (run === null) return;
        const { ids, httpStatus, at } = run;
        run = null;
        for (const part of chunks(ids)) {
          await trx
            .updateTable('webhook_deliveries')
            .set({ status: 'delivered', attempts: sql<number>`attempts + 1`, next_attempt_at: null, last_status: httpStatus, last_error: null, updated_at: at })
            .where('id', 'in', part)
            .execute();
        }
      };
      for (const o of outcomes) {
        if (o.result === 'delivered') {
          if (run !== null && run.httpStatus !== o.httpStatus) await flushRun();
          if (run === null) run = { ids: [], httpStatus: o.httpStatus, at: o.at };
          run.ids.push(o.id);
          run.at = Math.max(run.at, o.at);
          continue;
        }
        await flushRun();
        await trx
          .updateTable('webhook_deliveries')
          .set({
            status: o.result,
            attempts: sql<number>`attempts + 1`,
            next_attempt_at: o.result === 'retrying' ? o.nextAttemptAt : null,
            last_status: o.httpStatus,
            last_error: o.error,
            updated_at: o.at,
          })
          .where('id', '=', o.id)
          .execute();
      }
      await flushRun();
    });
  }

  /** Fails every delivery of a lane still to attempt (its URL was disabled); returns how many. */
  async failLane(instanceId: string, url: string, error: string, at: number): Promise<number> {
    const r = await this.db
      .updateTable('webhook_deliveries')
      .set({ status: 'failed', next_attempt_at: null, last_error: error, updated_at: at })
      .where('instance_id', '=', instanceId)
      .where('url', '=', url)
      .where('next_attempt_at', 'is not', null)
      .executeTakeFirst();
    return Number(r.numUpdatedRows);
  }

  /** An instance's deliveries, oldest first, after the `afterSeq` cursor. */
  async list(instanceId: string, status: DeliveryStatus | undefined, afterSeq: number, limit: number): Promise<DeliveryRecord[]> {
    let q = this.db
      .selectFrom('webhook_deliveries as d')
      .innerJoin('events as e', 'e.id', 'd.event_id')
      .select([
        'd.seq',
        'd.id',
        'd.event_id',
        'e.kind as type',
        'd.kind',
        'd.url',
        'd.status',
        'd.attempts',
        'd.next_attempt_at',
        'd.last_status',
        'd.last_error',
        'd.created_at',
        'd.updated_at',
        'e.payload',
      ])
      .where('d.instance_id', '=', instanceId)
      .where('d.seq', '>', afterSeq);
    if (status !== undefined) q = q.where('d.status', '=', status);
    const rows = await q.orderBy('d.seq').limit(limit).execute();
    return rows.map((r) => ({
      seq: Number(r.seq),
      id: r.id,
      eventId: r.event_id,
      type: r.type,
      kind: r.kind,
      url: r.url,
      status: r.status,
      attempts: r.attempts,
      nextAttemptAt: r.next_attempt_at === null ? null : Number(r.next_attempt_at),
      lastStatus: r.last_status,
      lastError: r.last_error,
      createdAt: Number(r.created_at),
      updatedAt: Number(r.updated_at),
      body: r.payload,
    }));
  }

  async find(instanceId: string, id: string): Promise<DeliveryRecord | undefined> {
    const row = await this.db
      .selectFrom('webhook_deliveries')
      .select('seq')
      .where('instance_id', '=', instanceId)
      .where('id', '=', id)
      .executeTakeFirst();
    if (row === undefined) return undefined;
    const [record] = await this.list(instanceId, undefined, Number(row.seq) - 1, 1);
    return record;
  }

  /** Puts a failed delivery back on the full retry schedule, aimed at `url`; false if it is not failed. */
  async requeue(instanceId: string, id: string, url: string, at: number): Promise<boolean> {
    const r = await this.db
      .updateTable('webhook_deliveries')
      .set({ status: 'pending', attempts: 0, url, next_attempt_at: at, last_status: null, last_error: null, updated_at: at })
      .where('instance_id', '=', instanceId)
      .where('id', '=', id)
      .where('status', '=', 'failed')
      .executeTakeFirst();
    return Number(r.numUpdatedRows) > 0;
  }

  /**
   * Deletes up to `limit` finished deliveries older than their cutoff, and the events left with
   * no delivery (those created before `eventsBefore`: younger ones stay for the event stream, whose
   * own sweep takes them later); returns how many deliveries went. Called repeatedly until it
   * returns less than `limit`.
   */
  async sweep(failedBefore: number, deliveredBefore: number, limit: number, eventsBefore = Number.MAX_SAFE_INTEGER): Promise<number> {
    const old = [
      ...(await this.db
        .selectFrom('webhook_deliveries')
        .select(['seq', 'event_id'])
        .where('next_attempt_at', 'is', null)
        .where('status', '=', 'failed')
        .where('updated_at', '<', failedBefore)
        .limit(limit)
        .execute()),
      ...(await this.db
        .selectFrom('webhook_deliveries')
        .select(['seq', 'event_id'])
        .where('next_attempt_at', 'is', null)
        .where('status', '=', 'delivered')
        .where('updated_at', '<', deliveredBefore)
        .limit(limit)
        .execute()),
    ].slice(0, limit);
    if (old.length === 0) return 0;
    await this.db.transaction().execute(async (trx) => {
      for (const part of chunks(old)) {
        await trx.deleteFrom('webhook_deliveries').where('seq', 'in', part.map((r) => r.seq)).execute();
        await trx
          .deleteFrom('events')
          .where('id', 'in', [...new Set(part.map((r) => r.event_id))])
          .where('created_at', '<', eventsBefore)
          .where((eb) => eb.not(eb.exists(eb.selectFrom('webhook_deliveries as d').select('d.seq').whereRef('d.event_id', '=', 'events.id'))))
          .execute();
      }
    });
    return old.length;
  }
}

interface LaneRow {
  id: string;
  event_id: string;
  kind: DueDelivery['kind'];
  attempts: number;
  created_at: number | string;
  type: DueDelivery['type'];
  payload: string;
  webhook_secret: string;
  webhook_secret_previous: string | null;
}

function dueDelivery(r: LaneRow, instanceId: string, url: string): DueDelivery {
  return {
    id: r.id,
    eventId: r.event_id,
    instanceId,
    kind: r.kind,
    type: r.type,
    url,
    attempts: r.attempts,
    body: r.payload,
    secrets: secretsOf(r.webhook_secret, r.webhook_secret_previous),
    createdAt: Number(r.created_at),
  };
}
