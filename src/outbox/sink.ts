// The one place events enter: each emit is committed (with its webhook deliveries) before it
// resolves, emits of the same tick sharing one transaction, and only then handed to the dispatcher.
//
// An event with no webhook to go to (no URL for its kind, a disabled URL, or a fromMe message while
// notifySentByMe is off) is not stored: zapgate keeps no copy of message content nobody asked for,
// unless the event stream is on (ZAPGATE_EVENT_STREAM_RETENTION_HOURS > 0): then every event is
// stored, those with no delivery only for the stream's retention window.
import { randomBytes } from 'node:crypto';
import type { Clock } from '../clock.js';
import { passesFilter, WEBHOOKS_TARGET } from '../domain/event-filter.js';
import { sinkTarget, type SinkKind } from '../domain/event-sink.js';
import { WEBHOOK_KIND_OF, type GatewayEvent } from '../events/types.js';
import type { DeliveriesRepo, DueDelivery, InstanceDeliveryContext, NewDelivery, NewOutboxEvent, OnceKey } from '../store/deliveries-repo.js';
import { WriteBatcher } from '../store/write-batcher.js';
import { joinCopies, type EventSinkWithCopies, type MessageCopies } from '../store/message-copies.js';
import { bodyOf, reported, routeOf } from './payload.js';

interface Emitted {
  instanceId: string;
  events: readonly GatewayEvent[];
  onceKeys: readonly (string | null)[] | undefined;
  copies: MessageCopies | undefined;
}

interface Batch {
  events: NewOutboxEvent[];
  deliveries: NewDelivery[];
  once: OnceKey[];
  jobs: DueDelivery[];
  copies: MessageCopies[];
}

export type OutboxStore = Pick<DeliveriesRepo, 'contexts' | 'commit'>;

let entropy = Buffer.alloc(0);
let entropyAt = 0;

/**
 * `<prefix><48-bit ms timestamp><80 random bits>`, in hex. Time first, so inserts into the unique
 * indexes land on the B-tree's right edge instead of a random page each: with synchronous=FULL the
 * pages written per commit are what limits throughput (bench/webhooks.ts).
 */
export function timeOrderedId(prefix: string, now: number): string {
  if (entropyAt + 10 > entropy.length) {
    entropy = randomBytes(4096);
    entropyAt = 0;
  }
  const random = entropy.toString('hex', entropyAt, entropyAt + 10);
  entropyAt += 10;
  return prefix + Math.max(0, Math.floor(now)).toString(16).padStart(12, '0') + random;
}

/**
 * The live event stream (services/event-stream.ts): its readers read committed events back from the
 * store, so after each commit it is told which instances had some, and wakes theirs.
 */
export interface LiveStream {
  notify(instanceIds: ReadonlySet<string>): void;
}

/** Which broker sinks each instance publishes to (sinks/directory.ts): a delivery is made for each. */
export type SinksOf = (instanceIds: readonly string[]) => Promise<ReadonlyMap<string, readonly SinkKind[]>>;

const NO_SINKS: ReadonlyMap<string, readonly SinkKind[]> = new Map();

export class OutboxSink implements EventSinkWithCopies {
  private readonly batcher: WriteBatcher<Emitted, void>;
  private closed = false;

  constructor(
    private readonly store: OutboxStore,
    private readonly clock: Clock,
    /** Receives each batch's deliveries once they are committed. */
    private readonly onCommitted: (jobs: readonly DueDelivery[]) => void,
    /** Stream side: whether to keep events no webhook takes; and the stream told of each commit. */
    private readonly stream: { keepAll: boolean; readers: LiveStream | null } | null = null,
    private readonly sinksOf: SinksOf | null = null,
  ) {
    this.batcher = new WriteBatcher((items) => this.flush(items));
  }

  emit(instanceId: string, events: readonly GatewayEvent[], onceKeys?: readonly (string | null)[], copies?: MessageCopies): Promise<void> {
    if (this.closed) return Promise.reject(new Error('the outbox is closed; the event was not recorded'));
    if (events.length === 0) return Promise.resolve();
    return this.batcher.submit({ instanceId, events, onceKeys, copies });
  }

  /** Waits for every emit accepted so far to be committed (a handover of an instance). */
  async drain(): Promise<void> {
    await this.batcher.drain();
  }

  /** Refuses further emits and waits for the ones already accepted to be committed. */
  async close(): Promise<void> {
    this.closed = true;
    await this.batcher.drain();
  }

  private async flush(items: readonly Emitted[]): Promise<void[]> {
    const ids = items.map((i) => i.instanceId);
    let contexts = await this.store.contexts(ids);
    const sinks = this.sinksOf === null ? NO_SINKS : await this.sinksOf(ids);
    let batch = this.build(items, contexts, sinks);
    let repeated: ReadonlySet<string>;
    try {
      repeated = await this.store.commit(batch.events, batch.deliveries, batch.once, joinCopies(batch.copies));
    } catch (err) {
      // An instance deleted between reading its context and the commit fails the whole batch on
      // its foreign key: without it, everyone else's events still go in. Anything else is rethrown.
      const fresh = await this.store.contexts(ids);
      if (fresh.size === contexts.size) throw err;
      contexts = fresh;
      batch = this.build(items, contexts, sinks);
      repeated = await this.store.commit(batch.events, batch.deliveries, batch.once, joinCopies(batch.copies));
    }
    this.onCommitted(repeated.size === 0 ? batch.jobs : batch.jobs.filter((j) => !repeated.has(j.eventId)));
    if (this.stream !== null && batch.events.length > 0) this.stream.readers?.notify(new Set(batch.events.map((e) => e.instanceId)));
    return items.map(() => undefined);
  }

  /** The rows to commit and the jobs to hand over, for the events that have somewhere to go. */
  private build(items: readonly Emitted[], contexts: ReadonlyMap<string, InstanceDeliveryContext>, sinks: ReadonlyMap<string, readonly SinkKind[]>): Batch {
    const now = this.clock.now();
    const batch: Batch = { events: [], deliveries: [], once: [], jobs: [], copies: [] };
    for (const { instanceId, events: emitted, onceKeys, copies } of items) {
      // An unknown instance (deleted meanwhile) has nowhere to deliver to, and no copy to keep.
      const ctx = contexts.get(instanceId);
      if (ctx === undefined) continue;
      if (copies !== undefined) batch.copies.push(copies);
      const brokers = sinks.get(instanceId) ?? [];
      for (const [i, event] of emitted.entries()) {
        // A target whose filter leaves the event out gets no delivery; the others are unaffected (docs/contract.md §5b).
        const routed = routeOf(event, ctx);
        const route = routed !== null && passesFilter(ctx.filters?.get(WEBHOOKS_TARGET), event) ? routed : null;
        const onceKey = onceKeys?.[i] ?? null;
        // Every event the instance reports goes to each of its broker sinks its filter lets through (docs/contract.md §5b).
        const toBrokers = brokers.length > 0 && reported(event, ctx) ? brokers.filter((kind) => passesFilter(ctx.filters?.get(sinkTarget(kind)), event)) : [];
        // Kept for the stream alone when no webhook URL takes it, unless the instance does not report it at all.
        const kept = route !== null || toBrokers.length > 0 || (this.stream?.keepAll === true && reported(event, ctx));
        // Recorded even when the event goes nowhere now: a webhook set later must not get a replay.
        if (onceKey !== null && !kept) batch.once.push({ instanceId, messageId: onceKey, eventId: null, at: now });
        if (!kept) continue;
        // The event id is the `webhook-id` (Standard Webhooks style `msg_…`) and the stream's event id.
        const eventId = timeOrderedId('msg_', now);
        const body = bodyOf(instanceId, event, ctx);
        if (onceKey !== null) batch.once.push({ instanceId, messageId: onceKey, eventId, at: now });
        batch.events.push({ id: eventId, instanceId, type: event.type, body, createdAt: now });
        const targets = toBrokers.map((kind) => ({ kind: WEBHOOK_KIND_OF[event.type], url: sinkTarget(kind) }));
        if (route !== null) targets.unshift(route);
        for (const target of targets) {
          const id = timeOrderedId('dlv_', now);
          batch.deliveries.push({ id, eventId, instanceId, kind: target.kind, url: target.url, createdAt: now });
          batch.jobs.push({ id, eventId, instanceId, kind: target.kind, type: event.type, url: target.url, attempts: 0, body, secrets: ctx.secrets, createdAt: now });
        }
      }
    }
    return batch;
  }
}
