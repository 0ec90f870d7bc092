// The one place events enter: each emit is committed (with its webhook deliveries) before it
// resolves, emits of the same tick sharing one transaction, and only then handed to the dispatcher.
//
// An event with no webhook to go to (no URL for its kind, a disabled URL, or a fromMe message while
// notifySentByMe is off) is not stored: zapgate keeps no copy of message content nobody asked for.
import { randomBytes } from 'node:crypto';
import type { Clock } from '../clock.js';
import type { EventSink, GatewayEvent } from '../events/types.js';
import type { DeliveriesRepo, DueDelivery, NewDelivery, NewOutboxEvent } from '../store/deliveries-repo.js';
import { WriteBatcher } from '../store/write-batcher.js';
import { bodyOf, routeOf } from './payload.js';

interface Emitted {
  instanceId: string;
  events: readonly GatewayEvent[];
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

export class OutboxSink implements EventSink {
  private readonly batcher: WriteBatcher<Emitted, void>;
  private closed = false;

  constructor(
    private readonly store: OutboxStore,
    private readonly clock: Clock,
    /** Receives each batch's deliveries once they are committed. */
    private readonly onCommitted: (jobs: readonly DueDelivery[]) => void,
  ) {
    this.batcher = new WriteBatcher((items) => this.flush(items));
  }

  emit(instanceId: string, events: readonly GatewayEvent[]): Promise<void> {
    if (this.closed) return Promise.reject(new Error('the outbox is closed; the event was not recorded'));
    if (events.length === 0) return Promise.resolve();
    return this.batcher.submit({ instanceId, events });
  }

  /** Refuses further emits and waits for the ones already accepted to be committed. */
  async close(): Promise<void> {
    this.closed = true;
    await this.batcher.drain();
  }

  private async flush(items: readonly Emitted[]): Promise<void[]> {
    const contexts = await this.store.contexts(items.map((i) => i.instanceId));
    const now = this.clock.now();
    const events: NewOutboxEvent[] = [];
    const deliveries: NewDelivery[] = [];
    const jobs: DueDelivery[] = [];
    for (const { instanceId, events: emitted } of items) {
      // An unknown instance (deleted meanwhile) has nowhere to deliver to.
      const ctx = contexts.get(instanceId);
      for (const event of emitted) {
        const route = ctx === undefined ? null : routeOf(event, ctx);
        if (ctx === undefined || route === null) continue;
        // The event id is the `webhook-id` (Standard Webhooks style `msg_…`).
        const eventId = timeOrderedId('msg_', now);
        const body = bodyOf(instanceId, event, ctx);
        const delivery: NewDelivery = { id: timeOrderedId('dlv_', now), eventId, instanceId, kind: route.kind, url: route.url, createdAt: now };
        events.push({ id: eventId, instanceId, type: event.type, body, createdAt: now });
        deliveries.push(delivery);
        jobs.push({ id: delivery.id, eventId, instanceId, kind: route.kind, url: route.url, attempts: 0, body, secrets: ctx.secrets });
      }
    }
    await this.store.commit(events, deliveries);
    this.onCommitted(jobs);
    return items.map(() => undefined);
  }
}
