// The queue endpoints: what an instance still has to send, straight from the store.
import { errors } from '../errors.js';
import type { OutgoingMessage } from '../domain/outgoing.js';
import type { Store } from '../store/index.js';
import type { MessageRow } from '../store/schema.js';

export interface QueuedMessageView {
  zaapId: string;
  messageId: string;
  phone: string;
  type: string;
  state: string;
  delayMessage: number | null;
  delayTyping: number | null;
  created: number;
  message: OutgoingMessage;
}

export class QueueService {
  constructor(private readonly store: Store) {}

  async list(instanceId: string, pageSize: number, pagingState: string | null) {
    const page = await this.store.messages.listWaiting(instanceId, pageSize, pagingState);
    return { messages: page.messages.map(view), pagingState: page.pagingState };
  }

  count(instanceId: string): Promise<number> {
    return this.store.messages.countWaiting(instanceId);
  }

  clear(instanceId: string): Promise<number> {
    return this.store.messages.clearWaiting(instanceId);
  }

  async remove(instanceId: string, zaapId: string): Promise<void> {
    if (await this.store.messages.removeWaiting(instanceId, zaapId)) return;
    const row = await this.store.messages.findByZaapId(instanceId, zaapId);
    if (!row) throw errors.notFound('Message not found in queue');
    throw errors.conflict('Message already sent or being sent', `state: ${row.state}`);
  }
}

function view(r: MessageRow): QueuedMessageView {
  return {
    zaapId: r.zaap_id,
    messageId: r.message_id,
    phone: r.phone,
    type: r.kind,
    state: r.state,
    delayMessage: r.delay_message,
    delayTyping: r.delay_typing,
    created: r.created_at,
    message: JSON.parse(r.payload) as OutgoingMessage,
  };
}
