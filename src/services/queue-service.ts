// The queue endpoints: what an instance still has to send, straight from the store.
import { errors } from '../errors.js';
import type { OutgoingMessage } from '../domain/outgoing.js';
import type { Store } from '../store/index.js';
import type { CancelledRow, ListedMessage } from '../store/messages-repo.js';
import type { Clock } from '../clock.js';
import type { EventSink } from '../events/types.js';
import { cancelledDeliveryEvent } from '../sender/events.js';

/** Payloads longer than this are read one at a time, and their data URIs are shortened in the view. */
const LIST_INLINE_CHARS = 64 * 1024;
/** A data URI longer than this is listed as its label and size only. */
const DATA_URI_SHOWN = 512;

interface QueuedMessageView {
  zaapId: string;
  messageId: string;
  phone: string;
  type: string;
  state: string;
  delayMessage: number | null;
  delayTyping: number | null;
  created: number;
  /** Attempts started so far (a failed one that may pass is retried up to the sender's cap). */
  attempts: number;
  /** While waiting for a retry: why the last attempt failed, its code, and when the next one is due (ms). */
  error: string | null;
  errorCode: string | null;
  nextAttemptAt: number | null;
  /** zapgate: when a scheduled message leaves (ms); null = as soon as its turn comes (docs/contract.md §12). */
  scheduledAt: number | null;
  message: OutgoingMessage;
  // Z-API's own names for the same item (its clients read these).
  _id: string;
  ZaapId: string;
  MessageId: string;
  InstanceId: string;
  Phone: string;
  /** The text, or the caption, or the kind of message when it has neither. */
  Message: string;
  /** Seconds, or -1 when the default gap applies. */
  DelayMessage: number;
  DelayTyping: number;
  IsTrial: false;
  Created: number;
}

/** A page also ends once its payloads reach this many characters (it always holds one message). */
const LIST_BUDGET_CHARS = 4 * 1024 * 1024;

/** Cancelled callbacks go to the outbox in commits of at most this many (a cleared queue can be long). */
const CANCELLED_PER_EMIT = 500;

export class QueueService {
  constructor(
    private readonly store: Pick<Store, 'messages'>,
    private readonly clock: Pick<Clock, 'now'>,
    /** Messages left the queue unsent: stored media they referenced may be removable now. */
    private readonly mediaReleased: () => void = () => {},
    /** Where a message taken out of the queue is reported cancelled (as a delete of it is). */
    private readonly events?: EventSink,
  ) {}

  /** `failed`: the messages the sender gave up on (their error and code), oldest first. */
  async list(instanceId: string, pageSize: number, pagingState: string | null, status: 'waiting' | 'failed' = 'waiting') {
    const states = status === 'failed' ? (['failed'] as const) : undefined;
    const page = await this.store.messages.listWaiting(instanceId, pageSize, pagingState, states, LIST_INLINE_CHARS, LIST_BUDGET_CHARS);
    const messages: QueuedMessageView[] = [];
    // Large payloads (data URIs) one at a time: a page never holds more than one of them.
    for (const row of page.messages) messages.push(view(instanceId, row, row.payload ?? (await this.store.messages.payloadOf(row.seq)) ?? 'null'));
    return { messages, pagingState: page.pagingState, hasMore: page.pagingState !== null };
  }

  count(instanceId: string): Promise<number> {
    return this.store.messages.countWaiting(instanceId);
  }

  async clear(instanceId: string): Promise<number> {
    const rows = await this.store.messages.clearWaiting(instanceId);
    if (rows.length > 0) this.mediaReleased();
    await this.reportCancelled(instanceId, rows);
    return rows.length;
  }

  async remove(instanceId: string, zaapId: string): Promise<void> {
    const row = await this.store.messages.removeWaiting(instanceId, zaapId);
    if (row) {
      this.mediaReleased();
      await this.reportCancelled(instanceId, [row]);
      return;
    }
    const found = await this.store.messages.findByZaapId(instanceId, zaapId);
    if (!found) throw errors.notFound('Message not found in queue');
    throw errors.conflict('Message already sent or being sent', `state: ${found.state}`);
  }

  /**
   * Each message taken out unsent gets its DeliveryCallback `CANCELLED`, as one deleted by its id
   * does (docs/contract.md §6). The rows are gone first: a crash in between loses only callbacks.
   */
  private async reportCancelled(instanceId: string, rows: readonly CancelledRow[]): Promise<void> {
    if (!this.events) return;
    const now = this.clock.now();
    for (let i = 0; i < rows.length; i += CANCELLED_PER_EMIT) {
      await this.events.emit(instanceId, rows.slice(i, i + CANCELLED_PER_EMIT).map((r) => cancelledDeliveryEvent(r, now)));
    }
  }
}

/** Shortens long data URIs to `data:<label>;base64,…(<n> characters)`: a listing is not a download. */
function elideDataUris(key: string, value: unknown): unknown {
  if (typeof value === 'string' && value.length > DATA_URI_SHOWN && value.startsWith('data:')) {
    const comma = value.indexOf(',');
    return `${value.slice(0, Math.min(comma + 1, 100))}…(${value.length} characters)`;
  }
  return value;
}

function view(instanceId: string, r: ListedMessage, payload: string): QueuedMessageView {
  const message = (payload.length > LIST_INLINE_CHARS ? JSON.parse(payload, elideDataUris) : JSON.parse(payload)) as OutgoingMessage;
  return {
    zaapId: r.zaap_id,
    messageId: r.message_id,
    phone: r.phone,
    type: r.kind,
    state: r.state,
    delayMessage: r.delay_message,
    delayTyping: r.delay_typing,
    created: r.created_at,
    attempts: r.attempts,
    error: r.error,
    errorCode: r.error_code,
    nextAttemptAt: r.next_attempt_at === null ? null : Number(r.next_attempt_at),
    scheduledAt: r.scheduled_at === null ? null : Number(r.scheduled_at),
    message,
    _id: r.zaap_id,
    ZaapId: r.zaap_id,
    MessageId: r.message_id,
    InstanceId: instanceId,
    Phone: r.phone,
    Message: summaryOf(message),
    DelayMessage: r.delay_message ?? -1,
    DelayTyping: r.delay_typing ?? 0,
    IsTrial: false,
    Created: r.created_at,
  };
}

/**
 * What Z-API's `Message` field shows of a queued message: its text or caption (at most
 * SUMMARY_CHARS: the whole is in `message`, and a page's byte bound must not count it twice),
 * else its kind.
 */
function summaryOf(m: OutgoingMessage): string {
  const c = m.content as { type: string; message?: unknown; caption?: unknown };
  const text = typeof c.message === 'string' ? c.message : typeof c.caption === 'string' ? c.caption : c.type;
  return text.length > SUMMARY_CHARS ? `${text.slice(0, SUMMARY_CHARS)}…` : text;
}
const SUMMARY_CHARS = 500;
