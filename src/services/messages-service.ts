// Send operations: validate, fix the WhatsApp message id, and durably enqueue.
import type { Clock } from '../clock.js';
import type { Metrics } from '../metrics.js';
import { errors } from '../errors.js';
import { newWaMessageId, newZaapId } from '../ids.js';
import { formatTarget, parseGroupId, parsePhone, parseTarget, STATUS_TARGET, type Target } from '../domain/phone.js';
import { assertChannelContent } from '../domain/channel-content.js';
import { parseScheduledAt } from '../domain/schedule.js';
import type { OutgoingContent, OutgoingMessage } from '../domain/outgoing.js';
import type { SessionsPort } from '../sessions/port.js';
import type { MessagesRepo } from '../store/messages-repo.js';
import { IDEMPOTENCY_KEY_MS } from '../store/messages-enqueue.js';
import type { WaMessagesRepo } from '../store/wa-messages-repo.js';
import type { Instance } from '../domain/instance.js';
import { DEFAULT_MEDIA_LIMITS, type MediaLimits } from '../convert/limits.js';
import { readImageHeader } from '../convert/image.js';
import { sniff } from '../convert/sniff.js';
import { SendFailure } from '../domain/send-failure.js';
import { decodeDataUri } from '../convert/data-uri.js';
import { mediaRef, type OutgoingMediaStore } from '../media/outgoing-store.js';
import type { QueuedBytesQuota } from './queued-bytes-quota.js';
import type { OptOutsService } from './opt-outs-service.js';
import type { EventSink } from '../events/types.js';
import { cancelledDeliveryEvent } from '../sender/events.js';
import { createHash } from 'node:crypto';

export interface SendCommon {
  phone: string;
  delayMessage?: number;
  delayTyping?: number;
  messageId?: string;
  mentioned?: string[];
  mentionAll?: boolean;
  /** Groups mentioned (send-text to a group of a community): write `@<groupId>` in the text. */
  groupMentioned?: { phone: string; subject: string }[];
  /** Not before this time: ISO 8601 with an offset, or epoch ms (docs/contract.md §12). */
  scheduledAt?: string | number;
  /**
   * The client's `Idempotency-Key` header: the same key within 24 hours answers the same message's
   * ids and queues nothing (docs/contract.md); not part of what is sent.
   */
  idempotencyKey?: string;
}

export interface SendResult {
  zaapId: string;
  messageId: string;
  id: string;
}

interface MessagesServiceOptions {
  queueMaxDisconnected: number;
  /** Limits a data URI is checked against before it is queued (defaults: src/convert/limits.ts). */
  media?: MediaLimits;
  /** Where data URIs go, so the queue holds a reference; none: kept inline (tests). */
  outgoingMedia?: OutgoingMediaStore;
  /** ZAPGATE_MAX_QUEUED_BYTES_PER_ACCOUNT. */
  quota?: QueuedBytesQuota;
  /** Files were stored for a message that was then not queued (the sweep removes them). */
  mediaReleased?: () => void;
}

/**
 * Who sends what is queued: the sender (sender/sender.ts), told after each durable enqueue so it
 * picks the message up without polling. None: this process sends nothing (HTTP contract tests).
 */
export interface SendQueue {
  notify(instanceId: string): void;
}

/** What MessagesService needs of the store (the SQL store implements it): the queue and sent ids. */
interface MessagesStore {
  readonly messages: Pick<MessagesRepo, 'enqueue' | 'cancelWaiting' | 'stateOf'>;
  readonly waMessages: Pick<WaMessagesRepo, 'find'>;
}

interface MessagesServiceDeps extends MessagesServiceOptions {
  store: MessagesStore;
  sessions: SessionsPort;
  clock: Clock;
  queue?: SendQueue | null;
  /** Counts each durable enqueue by content type (text, image, …); measured by bench/enqueue. */
  metrics?: Pick<Metrics, 'messagesEnqueued'>;
  /** Where a queued message deleted before it was sent is reported (its DeliveryCallback). */
  events?: EventSink;
  /** The accounts' opt-out lists: a direct send in strict mode is refused (docs/contract.md §12). */
  optOuts?: Pick<OptOutsService, 'assertDirectSend'>;
}

/** How long a delete waits for a message a lane is sending right now to be settled (sent or failed). */
const IN_FLIGHT_WAIT_MS = 20_000;
const IN_FLIGHT_POLL_MS = 100;

export class MessagesService {
  private readonly store: MessagesStore;
  private readonly sessions: SessionsPort;
  private readonly clock: Clock;
  private readonly options: MessagesServiceOptions;
  private readonly queue: SendQueue | null;
  private readonly events: EventSink | null;
  private readonly optOuts: MessagesServiceDeps['optOuts'] | null;
  private readonly enqueuedCount: Pick<Metrics, 'messagesEnqueued'> | null;
  /** Counter children per content type, made once: the enqueue path is the hot one. */
  private readonly enqueuedByKind = new Map<string, { inc(): void }>();

  constructor(deps: MessagesServiceDeps) {
    this.store = deps.store;
    this.sessions = deps.sessions;
    this.clock = deps.clock;
    this.options = deps;
    this.queue = deps.queue ?? null;
    this.events = deps.events ?? null;
    this.optOuts = deps.optOuts ?? null;
    this.enqueuedCount = deps.metrics ?? null;
  }

  /**
   * forward-message: the message must be one this instance remembers (sent or received in the last
   * 14 days) and be in the chat `messagePhone` names. Answers the chat as stored in the queue.
   */
  async assertKnownMessage(instance: Instance, messageId: string, messagePhone: string): Promise<string> {
    const chat = parseTarget(messagePhone, 'messagePhone');
    const row = await this.store.waMessages.find(instance.id, messageId);
    if (!row) {
      throw errors.networkRefused(`messageId: message ${messageId} is not known to this instance (only messages sent or received in the last 14 days can be forwarded)`);
    }
    const stored = chatOf(row.remote_jid);
    // A chat known only by its LID cannot be compared with a phone number: trust the id then.
    if (stored !== null && stored !== formatTarget(chat)) {
      throw errors.invalidInput(`messagePhone: message ${messageId} is in chat ${stored}, not ${formatTarget(chat)}`);
    }
    return formatTarget(chat);
  }

  /** read-message: a read receipt, sent at once (Z-API answers 204; nothing is queued). */
  async readMessage(instance: Instance, phone: string, messageId: string): Promise<void> {
    const target = parseTarget(phone);
    if (!this.sessions.isConnected(instance.id)) throw errors.notConnected();
    await this.sessions.readMessage(instance.id, { phone: formatTarget(target), messageId });
  }

  /**
   * DELETE /messages: a message still in the queue is taken out of it and never sent (its
   * DeliveryCallback says it was cancelled; no session needed). Otherwise revoke (owner) or
   * delete-for-me / admin-revoke (not owner), at once through the running session; the engine
   * answers 404 for a message it cannot name, 422 when refused. A message a lane is sending at this
   * moment is waited for, then revoked like any sent one (docs/contract.md §6).
   */
  async deleteMessage(instance: Instance, phone: string, messageId: string, owner: boolean): Promise<void> {
    const target = parseTarget(phone);
    if (await this.cancelQueued(instance.id, messageId)) return;
    if (!this.sessions.isConnected(instance.id)) throw errors.notConnected();
    await this.settled(instance.id, messageId);
    await this.sessions.deleteMessage(instance.id, { phone: formatTarget(target), messageId, owner });
  }

  /** True when the message was waiting and is now out of the queue, reported as cancelled. */
  private async cancelQueued(instanceId: string, messageId: string): Promise<boolean> {
    const row = await this.store.messages.cancelWaiting(instanceId, messageId);
    if (!row) return false;
    // The row is gone first, so a lane can no longer claim it; a crash before this emit loses only
    // the callback, never sends the message.
    await this.events?.emit(instanceId, [cancelledDeliveryEvent(row, this.clock.now())]);
    if (row.media_bytes > 0) this.options.mediaReleased?.();
    return true;
  }

  /**
   * Waits while a lane is sending the message (claimed, not yet settled), up to IN_FLIGHT_WAIT_MS:
   * a guard, since the send is waiting on the network.
   */
  private async settled(instanceId: string, messageId: string): Promise<void> {
    const notInFlight = async (): Promise<boolean> => (await this.store.messages.stateOf(instanceId, messageId)) !== 'in_flight';
    if (!(await this.clock.waitUntil(notInFlight, IN_FLIGHT_WAIT_MS, { pollMs: IN_FLIGHT_POLL_MS }))) {
      throw errors.conflict('Message is being sent', 'messageId: the message is being sent right now; try again in a few seconds');
    }
  }

  /**
   * send-call: the engine (Baileys 7 rc14) can reject and receive call offers but has no way to
   * place one, so the call is refused honestly rather than faked (docs/contract.md §11).
   */
  sendCall(phone: string): never {
    parsePhone(phone);
    throw errors.notSupported('placing a call is not available to a linked device here: the engine cannot send a call offer; nothing was sent');
  }

  /** A status post (stories): text, an image or a video, shown to the instance's contacts. */
  sendStatus(instance: Instance, content: OutgoingContent): Promise<SendResult> {
    return this.send(instance, { phone: STATUS_TARGET }, content, { target: { kind: 'status' } });
  }

  /** A reply to a contact's status post: a message to the contact that quotes the post. */
  replyToStatus(instance: Instance, phone: string, statusMessageId: string, content: OutgoingContent): Promise<SendResult> {
    return this.send(instance, { phone }, content, { statusReplyTo: statusMessageId });
  }

  /** The confirmation an opt-out keyword is answered with: it goes to an opted-out number by design. */
  sendConfirmation(instance: Instance, phone: string, text: string): Promise<SendResult> {
    return this.send(instance, { phone }, { type: 'text', message: text }, { optOutConfirmation: true });
  }

  async send(
    instance: Instance,
    common: SendCommon,
    content: OutgoingContent,
    options: { target?: Target; statusReplyTo?: string; optOutConfirmation?: boolean } = {},
  ): Promise<SendResult> {
    const target = options.target ?? parseTarget(common.phone);
    const message = buildMessage(target, common, content);
    if (options.statusReplyTo) message.statusReplyTo = options.statusReplyTo;
    const scheduledAt = common.scheduledAt === undefined ? null : parseScheduledAt(common.scheduledAt, this.clock.now());
    // A scheduled send to an opted-out number is accepted and skipped when it falls due (the lane
    // checks then); a direct one is refused now, in strict mode only (docs/contract.md §12).
    if (scheduledAt === null && target.kind === 'phone' && !options.optOutConfirmation) await this.optOuts?.assertDirectSend(instance.accountId, target.digits);
    const decoded = mediaRefsOf(content).length > 0 ? await this.checkInlineMedia(content) : undefined;
    const connected = this.sessions.isConnected(instance.id);
    // A scheduled message is meant to wait: the instance need not be connected now (§12).
    if (!connected && scheduledAt === null && instance.disableEnqueueWhenDisconnected) throw errors.notConnected();
    // Data URIs leave the message for files; the queue row holds their references.
    const inline = this.options.outgoingMedia ? collectDataUris(message.content, decoded) : [];
    const media = inline.map((d) => ({ ...d, sha256: createHash('sha256').update(d.bytes).digest('hex') }));
    const distinct = [...new Map(media.map((m) => [m.sha256, { sha256: m.sha256, bytes: m.bytes.length }])).values()];
    // The references are known before anything is written (content address and size), so the
    // quota is checked on the final payload and a refused message leaves nothing on disk.
    for (const m of media) m.replace(mediaRef(m.sha256, m.bytes.length));
    const payload = JSON.stringify(message);
    const admitted = this.options.quota?.admit(instance.accountId, payload.length, distinct);
    if (admitted) await admitted;
    const stored: string[] = [];
    let queued = false;
    try {
      for (const m of media) {
        if (stored.includes(m.sha256)) continue;
        await this.options.outgoingMedia!.put(m.bytes, m.sha256);
        stored.push(m.sha256);
      }
      const result = await this.enqueue(instance, target, common, content, payload, connected || scheduledAt !== null, distinct.reduce((n, m) => n + m.bytes, 0), scheduledAt);
      queued = true;
      return result;
    } finally {
      for (const sha of stored) this.options.outgoingMedia!.release(sha);
      if (!queued && stored.length > 0) this.options.mediaReleased?.();
    }
  }

  private async enqueue(
    instance: Instance,
    target: Target,
    common: SendCommon,
    content: OutgoingContent,
    payload: string,
    connected: boolean,
    mediaBytes: number,
    scheduledAt: number | null,
  ): Promise<SendResult> {
    const now = this.clock.now();
    const zaapId = newZaapId(now);
    const messageId = newWaMessageId(now);
    const phone = formatTarget(target);
    // What makes a retry the same request: where it goes, what it says (media by content address), its delays.
    const idempotency = common.idempotencyKey
      ? {
          key: common.idempotencyKey,
          hash: createHash('sha256').update(JSON.stringify([phone, content.type, payload, common.delayMessage ?? null, common.delayTyping ?? null])).digest('hex'),
          notBefore: now - IDEMPOTENCY_KEY_MS,
        }
      : undefined;
    const outcome = await this.store.messages.enqueue({
      ...(idempotency ? { idempotency } : {}),
      row: {
        zaap_id: zaapId,
        instance_id: instance.id,
        message_id: messageId,
        phone,
        kind: content.type,
        payload,
        delay_message: common.delayMessage ?? null,
        delay_typing: common.delayTyping ?? null,
        state: 'queued',
        wa_status: null,
        error: null,
        created_at: now,
        updated_at: now,
        sent_at: null,
        ...(mediaBytes > 0 ? { media_bytes: mediaBytes } : {}),
        scheduled_at: scheduledAt,
      },
      cap: connected ? 0 : this.options.queueMaxDisconnected,
    });
    if (!outcome.ok) {
      if (outcome.reason === 'replayed') return { zaapId: outcome.zaapId, messageId: outcome.messageId, id: outcome.messageId };
      if (outcome.reason === 'key_reused') throw errors.idempotencyKeyReused();
      if (outcome.reason === 'queue_full') throw errors.queueFull(5);
      throw errors.instanceNotFound();
    }
    this.queue?.notify(instance.id);
    this.countEnqueued(content.type);
    return { zaapId, messageId, id: messageId };
  }

  private countEnqueued(kind: string): void {
    if (!this.enqueuedCount) return;
    let child = this.enqueuedByKind.get(kind);
    if (!child) this.enqueuedByKind.set(kind, (child = this.enqueuedCount.messagesEnqueued.labels(kind)));
    child.inc();
  }

  /**
   * A data URI is already here: what it really is (its bytes, not its label) and, for images, its
   * size (from the header, nothing decoded) are checked before it is queued, so bad media is a
   * 400 now instead of a failed message later. URLs are checked when they are fetched.
   */
  private async checkInlineMedia(content: OutgoingContent): Promise<Map<string, Buffer>> {
    const limits = this.options.media ?? DEFAULT_MEDIA_LIMITS;
    const decoded = new Map<string, Buffer>();
    for (const { field, ref, expects } of mediaRefsOf(content)) {
      const data = decodeDataUri(ref);
      if (!data) continue;
      decoded.set(ref, data);
      if (data.length === 0) throw errors.invalidInput(`${field}: the data URI is empty`);
      if (data.length > limits.maxBytes) throw errors.invalidInput(`${field}: ${data.length} bytes is more than the limit of ${limits.maxBytes}`);
      if (expects === 'image') {
        try {
          await readImageHeader(data, limits, field);
        } catch (err) {
          if (err instanceof SendFailure) throw errors.invalidInput(err.reason);
          throw err;
        }
        continue;
      }
      if (expects === 'any') continue;
      const { family, mimetype } = sniff(data);
      const ok = expects === 'audio' ? family === 'audio' || family === 'video' : family === 'video' || (expects === 'gif' && mimetype === 'image/gif');
      if (!ok) {
        const shown = family === 'other' ? 'unknown data' : mimetype;
        throw errors.invalidInput(`${field}: the data URI is not ${expects === 'audio' ? 'audio' : 'a video'} (${shown})`);
      }
    }
    return decoded;
  }
}

/** A media field of a content, and what it must hold. */
interface MediaRef {
  field: string;
  ref: string;
  expects: 'image' | 'audio' | 'video' | 'gif' | 'any';
}

function mediaRefsOf(c: OutgoingContent): MediaRef[] {
  switch (c.type) {
    case 'image':
      return [{ field: 'image', ref: c.image, expects: 'image' }];
    case 'sticker':
      return [{ field: 'sticker', ref: c.sticker, expects: 'image' }];
    case 'button-list':
      if (c.image) return [{ field: 'buttonList.image', ref: c.image, expects: 'image' }];
      if (c.video) return [{ field: 'buttonList.video', ref: c.video, expects: 'video' }];
      return [];
    case 'audio':
      return [{ field: 'audio', ref: c.audio, expects: 'audio' }];
    case 'video':
      return [{ field: 'video', ref: c.video, expects: 'video' }];
    case 'ptv':
      return [{ field: 'video', ref: c.video, expects: 'video' }];
    case 'gif':
      return [{ field: 'gif', ref: c.gif, expects: 'gif' }];
    case 'document':
      return [{ field: 'document', ref: c.document, expects: 'any' }];
    default:
      return [];
  }
}
// Outgoing media by reference: a data URI leaves the queued payload for a stored file.
interface InlineMedia {
  uri: string;
  bytes: Buffer;
  /** Puts the stored file's reference where the data URI was. */
  replace(ref: string): void;
}

/** Every data URI anywhere in the content (media fields, link and card images), decoded. */
function collectDataUris(content: OutgoingContent, decoded: Map<string, Buffer> | undefined): InlineMedia[] {
  const out: InlineMedia[] = [];
  const visit = (node: unknown): void => {
    if (Array.isArray(node)) {
      node.forEach((v, i) => (typeof v === 'string' ? check(v, (ref) => (node[i] = ref)) : visit(v)));
    } else if (node !== null && typeof node === 'object') {
      const obj = node as Record<string, unknown>;
      for (const [k, v] of Object.entries(obj)) {
        if (typeof v === 'string') check(v, (ref) => (obj[k] = ref));
        else visit(v);
      }
    }
  };
  const check = (value: string, replace: (ref: string) => void): void => {
    if (!value.startsWith('data:')) return;
    const bytes = decoded?.get(value) ?? decodeDataUri(value);
    if (bytes && bytes.length > 0) out.push({ uri: value, bytes, replace });
  };
  visit(content);
  return out;
}

function buildMessage(target: Target, common: SendCommon, content: OutgoingContent): OutgoingMessage {
  if (common.mentionAll && target.kind !== 'group') {
    throw errors.invalidInput('mentionAll can only be used in groups');
  }
  if (target.kind === 'newsletter') assertChannelContent(content.type);
  const message: OutgoingMessage = { content };
  if (common.messageId) message.replyTo = common.messageId;
  if (common.mentioned && common.mentioned.length > 0) {
    message.mentioned = common.mentioned.map((p, i) => parsePhone(p, `mentioned[${i}]`));
  }
  if (common.mentionAll) message.mentionAll = true;
  if (common.groupMentioned && common.groupMentioned.length > 0) {
    // The network shows them only between groups of one community; a chat is never one.
    if (target.kind !== 'group') throw errors.invalidInput('groupMentioned: groups are mentioned in groups only');
    message.groupMentions = common.groupMentioned.map((g, i) => ({ groupId: `${parseGroupId(g.phone, `groupMentioned[${i}].phone`)}-group`, subject: g.subject }));
  }
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

/** `<digits>` or `<digits>-group` for a stored chat jid; null when it is a LID or anything else. */
function chatOf(jid: string): string | null {
  const m = /^(\d+)(?::\d+)?@(s\.whatsapp\.net|g\.us)$/.exec(jid);
  if (!m) return null;
  return m[2] === 'g.us' ? `${m[1]}-group` : (m[1] ?? null);
}
