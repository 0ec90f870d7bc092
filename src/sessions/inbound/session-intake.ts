// Everything that comes from the engine for one session, after intake-table.ts routed it: received
// messages (upsert → events → commit → receipts released), messages read on the phone, calls,
// presence. Upserts are reported one after the other (per chat order is kept), and the receipts
// a network message holds go only once its event is committed (receipt-gate.ts).
import type { WAMessage } from 'baileys';
import type { Clock } from '../../clock.js';
import type { GatewayEvent } from '../../events/types.js';
import type { ChatRecorder, RecordedMessage } from './chat-recorder.js';
import type { Identity } from '../link/identity.js';
import { mediaFileId, type InboundMedia, type MediaPart } from './inbound-media.js';
import { toReceivedCallback, type IncomingContext } from './incoming.js';
import { groupIdOf, isGroup } from '../jids.js';
import type { LiveSession } from '../live-session.js';
import { callNotificationOf, notificationOf, type CallInfo } from './notifications.js';
import type { ReceiptGate } from '../link/receipt-gate.js';
import type { SessionReactions } from '../session-hooks.js';
import type { WASocket } from '../link/socket-config.js';
import type { EventSinkWithCopies, MessageCopies } from '../../store/message-copies.js';
import type { WaMessageRow } from '../../store/schema.js';

export interface SessionIntakeDeps {
  session: LiveSession;
  events: EventSinkWithCopies;
  clock: Clock;
  identity: Identity;
  chats: ChatRecorder;
  /** Received media: files recorded before their event, downloaded after it. */
  media: Pick<InboundMedia, 'register' | 'prefetch'>;
  reactions?: SessionReactions | undefined;
}

export class SessionIntake {
  /** Received messages are reported one upsert after the other: per chat order is kept. */
  private incoming: Promise<void> = Promise.resolve();
  /** The commit of the latest upsert handed to the outbox (stop() waits for it). */
  private commits: Promise<void> = Promise.resolve();
  /** Calls answered on the phone (so their end is CALL_ENDED, not a missed call); bounded. */
  private answeredCalls = new Set<string>();

  constructor(private readonly deps: SessionIntakeDeps) {}

  /** Resolves once every upsert taken so far is reported and its commit settled. */
  async idle(): Promise<void> {
    await this.incoming;
    await this.commits;
  }

  /** Queues an upsert for reporting; network messages and notifications hold their receipts. */
  takeUpsert(messages: readonly WAMessage[], type: 'append' | 'notify', gate: ReceiptGate, sock: WASocket): void {
    const fromNetwork = messages.map((m) => {
      const id = m.key.id ?? '';
      // Stub messages come from notifications, acked when this returns: hold now.
      if (m.messageStubType && id) gate.hold(id);
      return type === 'notify' || !!m.messageStubType || gate.isHeld(id);
    });
    this.incoming = this.incoming.then(() => this.onUpsert(messages, fromNetwork, gate, sock));
  }

  /**
   * Builds the upsert's events and hands them to the outbox; resolves once they are handed over
   * (not committed), so the next upsert is built while this one commits: emits keep their order,
   * and commits of many messages share one transaction. Receipts are released per commit.
   */
  private async onUpsert(messages: readonly WAMessage[], fromNetwork: readonly boolean[], gate: ReceiptGate, sock: WASocket): Promise<void> {
    const { session } = this.deps;
    const ctx = this.deps.identity.incomingContext();
    const events: GatewayEvent[] = [];
    const keys: (string | null)[] = [];
    const settle: string[] = [];
    const media: string[] = [];
    const recorded: RecordedMessage[] = [];
    const remembered: WaMessageRow[] = [];
    try {
      for (const [i, msg] of messages.entries()) {
        const id = msg.key.id;
        const network = fromNetwork[i]!;
        if (id && network) settle.push(id);
        if (msg.key.fromMe) this.foldedReceipts(msg);
        if (msg.key.remoteJid === 'status@broadcast') continue;
        if (msg.messageStubType) {
          const note = await notificationOf(msg, ctx);
          // A group the API created is reported by the API path, with its pending id.
          if (note && !(note.notification === 'GROUP_CREATE' && note.fromMe)) {
            events.push(note);
            keys.push(id ? `${id}:stub` : null);
          }
          continue;
        }
        if (!msg.message || !id) continue;
        // Our own API sends are remembered by the send path (with list metadata); remember the rest.
        const row = network ? session.memory.rowOf(msg) : null;
        if (row) remembered.push(row);
        const event = await toReceivedCallback(msg, network ? { ...ctx, media: this.mediaFor(media) } : ctx, { fromApi: !network });
        if (!event) continue;
        events.push(event);
        keys.push(network ? id : null);
        recorded.push({ event, msg, network });
      }
    } catch (err) {
      return this.notRecorded(err, gate, sock);
    }
    // The stored copy and the remembered messages commit with the events (one commit per batch).
    const copies: MessageCopies = { chats: this.deps.chats.writesFor(recorded), remembered };
    const committed = events.length > 0 ? this.deps.events.emit(session.id, events, keys, copies) : this.rememberAlone(remembered);
    this.commits = committed.then(
      () => {
        for (const id of settle) gate.settle(id);
        if (media.length > 0) this.deps.media.prefetch(media);
        // Read receipts (auto-read) only for what is recorded: a lost event is never marked read.
        this.deps.reactions?.received(session, messages.filter((m, i) => fromNetwork[i] && !m.key.fromMe));
      },
      (err: unknown) => this.notRecorded(err, gate, sock),
    );
  }

  /** Messages that make no event (nothing else to commit with): remembered in the memory's own batches. */
  private rememberAlone(rows: readonly WaMessageRow[]): Promise<void> {
    for (const row of rows) void this.deps.session.memory.put(row).catch((err: unknown) => this.deps.session.failed(err, 'remember message'));
    return Promise.resolve();
  }

  /** Not recorded: the receipts must not go. Dropping the link makes the network deliver again. */
  private notRecorded(err: unknown, gate: ReceiptGate, sock: WASocket): void {
    this.deps.session.failed(err, 'record received messages');
    gate.close();
    sock.end(err instanceof Error ? err : new Error(String(err)));
  }

  /** The media hook of the incoming context: records files, remembers their ids for prefetching. */
  private mediaFor(collected: string[]): IncomingContext['media'] {
    const id = this.deps.session.id;
    return async (messageId: string, parts: readonly MediaPart[]) => {
      const links = await this.deps.media.register(id, messageId, parts);
      for (const p of parts) if (!('inline' in p.source)) collected.push(mediaFileId(id, messageId, p.part));
      return links;
    };
  }

  /**
   * Baileys buffers events for ~100 ms and merges receipts that arrive meanwhile into the upsert of
   * our own message (its `status`, or `userReceipt` in groups) instead of emitting updates.
   */
  private foldedReceipts(msg: WAMessage): void {
    const { tracker } = this.deps.session;
    if (typeof msg.status === 'number') tracker.onUpdates([{ key: msg.key, update: { status: msg.status } }]);
    for (const receipt of msg.userReceipt ?? []) {
      if (receipt.userJid) tracker.onReceipts([{ key: msg.key, receipt: { ...receipt, userJid: receipt.userJid } }]);
    }
  }

  /** The account's own phone read messages this instance received: Z-API's READ_BY_ME. */
  async onReadByMe(updates: readonly { key: WAMessage['key']; update: { status?: number | null } }[]): Promise<void> {
    const byChat = new Map<string, string[]>();
    for (const { key, update } of updates) {
      if (key.fromMe || !key.id || !key.remoteJid || update.status !== 4) continue;
      byChat.set(key.remoteJid, [...(byChat.get(key.remoteJid) ?? []), key.id]);
    }
    const events: GatewayEvent[] = [];
    for (const [chat, ids] of byChat) {
      const person = isGroup(chat) ? { phone: groupIdOf(chat), lid: null } : await this.deps.identity.personOf(chat);
      events.push({ type: 'MessageStatusCallback', status: 'READ_BY_ME', ids, momment: this.deps.clock.now(), phone: person.phone, chatLid: person.lid, isGroup: isGroup(chat), phoneDevice: 0 });
      this.deps.chats.readOnPhone(person.phone, ids);
    }
    await this.deps.session.emit(events);
  }

  async onCalls(calls: readonly CallInfo[]): Promise<void> {
    const { session } = this.deps;
    this.deps.reactions?.calls(session, calls);
    const ctx = this.deps.identity.incomingContext();
    const events: GatewayEvent[] = [];
    const keys: string[] = [];
    for (const call of calls) {
      if (call.status === 'accept') {
        if (this.answeredCalls.size > 1000) this.answeredCalls.clear();
        this.answeredCalls.add(call.id);
      }
      const event = await callNotificationOf(call, this.answeredCalls.has(call.id), ctx);
      if (call.status === 'terminate') this.answeredCalls.delete(call.id);
      if (!event) continue;
      events.push(event);
      keys.push(`${call.id}:${String(event.notification)}`);
    }
    if (events.length > 0) await this.deps.events.emit(session.id, events, keys).catch((err: unknown) => session.failed(err, 'record calls'));
  }

  async onPresence(update: { id: string; presences: Record<string, { lastKnownPresence: string; lastSeen?: number }> }): Promise<void> {
    if (isGroup(update.id)) return;
    const events: GatewayEvent[] = [];
    for (const [jid, p] of Object.entries(update.presences)) {
      const status = p.lastKnownPresence.toUpperCase();
      if (status !== 'AVAILABLE' && status !== 'UNAVAILABLE' && status !== 'COMPOSING' && status !== 'PAUSED' && status !== 'RECORDING') continue;
      const person = await this.deps.identity.personOf(jid);
      events.push({ type: 'PresenceChatCallback', phone: person.phone, chatLid: person.lid, status, lastSeen: p.lastSeen ? p.lastSeen * 1000 : null, momment: this.deps.clock.now() });
    }
    await this.deps.session.emit(events);
  }
}
