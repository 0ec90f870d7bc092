// The engine's road into the event pipeline, with a tap after the commit: what was received is
// handed to listeners (the opt-out watch) only once it is committed, so a listener never acts on a
// message the gateway might receive again, and never delays the commit or the receipts.
import type { GatewayEvent } from '../events/types.js';
import type { EventSinkWithCopies, MessageCopies } from '../store/message-copies.js';

export type ReceivedListener = (instanceId: string, events: readonly GatewayEvent[]) => void;

export class ReceivedTap implements EventSinkWithCopies {
  private readonly listeners: ReceivedListener[] = [];

  constructor(private readonly inner: EventSinkWithCopies) {}

  /** Listeners are called synchronously after each commit: they must only look, and start their work in the background. */
  listen(listener: ReceivedListener): void {
    this.listeners.push(listener);
  }

  async emit(instanceId: string, events: readonly GatewayEvent[], onceKeys?: readonly (string | null)[], copies?: MessageCopies): Promise<void> {
    await this.inner.emit(instanceId, events, onceKeys, copies);
    // A redelivered message (its once-key already recorded) is handed over again: listeners must be idempotent.
    for (const l of this.listeners) l(instanceId, events);
  }
}
