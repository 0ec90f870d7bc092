// The one place events enter: each emit is committed (with its webhook deliveries) before it
// resolves, emits of the same tick sharing one transaction, and only then handed to the dispatcher.
//
// An event with no webhook to go to (no URL for its kind, a disabled URL, or a fromMe message while
// notifySentByMe is off) is not stored: zapgate keeps no copy of message content nobody asked for.
import { randomUUID } from 'node:crypto';
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

/** `webhook-id` values: the Standard Webhooks `msg_` prefix, then 128 random bits. */
export function newEventId(): string {
  return `msg_${randomUUID().replaceAll('-', '')}`;
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
        const eventId = newEventId();
        const body = bodyOf(instanceId, event, ctx);
        const delivery: NewDelivery = { id: randomUUID(), eventId, instanceId, kind: route.kind, url: route.url, createdAt: now };
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
