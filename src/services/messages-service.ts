// Send operations: validate, fix the WhatsApp message id, and durably enqueue.
import type { Clock } from '../clock.js';
import { DomainError, errors } from '../errors.js';
import { newWaMessageId, newZaapId } from '../ids.js';
import { formatTarget, parsePhone, parseTarget, type Target } from '../domain/phone.js';
import type { OutgoingContent, OutgoingMessage } from '../domain/outgoing.js';
import type { SessionsPort } from '../sessions/port.js';
import type { Store } from '../store/index.js';
import type { InstanceRow } from '../store/schema.js';

export interface SendCommon {
  phone: string;
  delayMessage?: number;
  delayTyping?: number;
  messageId?: string;
  mentioned?: string[];
  mentionAll?: boolean;
}

export interface SendResult {
  zaapId: string;
  messageId: string;
  id: string;
}

export interface MessagesServiceOptions {
  queueMaxDisconnected: number;
}

/** Called after a commit so the sender can pick the message up without polling. */
export type EnqueuedListener = (instanceId: string) => void;

export class MessagesService {
  private readonly listeners: EnqueuedListener[] = [];

  constructor(
    private readonly store: Store,
    private readonly sessions: SessionsPort,
    private readonly clock: Clock,
    private readonly options: MessagesServiceOptions,
  ) {}

  onEnqueued(listener: EnqueuedListener): void {
    this.listeners.push(listener);
  }

  async send(instance: InstanceRow, common: SendCommon, content: OutgoingContent): Promise<SendResult> {
    const target = parseTarget(common.phone);
    const message = buildMessage(target, common, content);
    const connected = this.sessions.isConnected(instance.id);
    if (!connected && instance.disable_enqueue_when_disconnected === 1) throw errors.notConnected();
    const now = this.clock.now();
    const zaapId = newZaapId();
    const messageId = newWaMessageId();
    const outcome = await this.store.messages.enqueue({
      row: {
        zaap_id: zaapId,
        instance_id: instance.id,
        message_id: messageId,
        phone: formatTarget(target),
        kind: content.type,
        payload: JSON.stringify(message),
        delay_message: common.delayMessage ?? null,
        delay_typing: common.delayTyping ?? null,
        state: 'queued',
        wa_status: null,
        error: null,
        created_at: now,
        updated_at: now,
        sent_at: null,
      },
      cap: connected ? 0 : this.options.queueMaxDisconnected,
    });
    if (!outcome.ok) {
      if (outcome.reason === 'queue_full') throw errors.queueFull(5);
      throw errors.instanceNotFound();
    }
    for (const l of this.listeners) l(instance.id);
    return { zaapId, messageId, id: messageId };
  }
}

function buildMessage(target: Target, common: SendCommon, content: OutgoingContent): OutgoingMessage {
  if (common.mentionAll && target.kind !== 'group') {
    throw new DomainError('invalid_input', 'Invalid request', 'mentionAll can only be used in groups');
  }
  const message: OutgoingMessage = { content };
  if (common.messageId) message.replyTo = common.messageId;
  if (common.mentioned && common.mentioned.length > 0) {
    message.mentioned = common.mentioned.map((p, i) => parsePhone(p, `mentioned[${i}]`));
  }
  if (common.mentionAll) message.mentionAll = true;
  return message;
}

/** Parses a decimal-degrees string within ±limit. */
export function parseDegrees(raw: string | number, field: string, limit: number): number {
  const value = typeof raw === 'number' ? raw : /^\s*-?\d+(\.\d+)?\s*$/.test(raw) ? Number(raw) : NaN;
  if (!Number.isFinite(value) || Math.abs(value) > limit) {
    throw errors.invalidInput(`${field}: must be decimal degrees between -${limit} and ${limit}`);
  }
  return value;
}
