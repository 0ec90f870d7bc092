// The network's view of what we sent: server acks (SENT, or a nack with the network's reason) and
// receipts (RECEIVED, READ, PLAYED), recorded monotonically and reported once per change.
import type { BinaryNode, MessageUserReceiptUpdate, WAMessageUpdate } from 'baileys';
import { errors } from '../../errors.js';
import type { Person } from '../../domain/person.js';
import type { MessageStatus, MessageStatusCallback } from '../../events/types.js';

/** Ack error codes that mean "this account is being restricted": the sender pauses. */
const RESTRICTION_ACK_CODES = new Set([463, 475, 479, 429]);

interface TrackerDeps {
  advance(messageIds: readonly string[], status: MessageStatus, at: number): Promise<{ message_id: string; phone: string }[]>;
  recordError(messageId: string, reason: string, at: number): Promise<void>;
  emit(events: MessageStatusCallback[]): Promise<void>;
  /** The person behind a queued message's chat (a number or a `<digits>@lid`), named consistently. */
  personOfChat(chat: string): Promise<Person>;
  restriction(reason: string): void;
  now(): number;
  /** Logs and counts a failure that must not break the socket's event loop. */
  failed(err: unknown, what: string): void;
}

interface AckWaiter {
  resolve(): void;
  reject(err: Error): void;
}

// proto.WebMessageInfo.Status: 2 server ack, 3 delivered, 4 read, 5 played.
const STATUS_OF: Record<number, MessageStatus> = { 2: 'SENT', 3: 'RECEIVED', 4: 'READ', 5: 'PLAYED' };

export class StatusTracker {
  private readonly waiters = new Map<string, AckWaiter>();
  /** Records apply in arrival order, so RECEIVED then READ never race into READ alone. */
  private chain: Promise<void> = Promise.resolve();

  constructor(private readonly deps: TrackerDeps) {}

  /** Registers interest in the server ack of `messageId`; call before the stanza is written. */
  expectAck(messageId: string): Promise<void> {
    const acked = new Promise<void>((resolve, reject) => {
      this.waiters.set(messageId, { resolve, reject });
    });
    // A nack can arrive before the sender starts awaiting (while Baileys is still returning):
    // that must not count as an unhandled rejection; the awaiting caller still sees it.
    acked.catch(() => {});
    return acked;
  }

  forget(messageId: string): void {
    this.waiters.delete(messageId);
  }

  /** The socket closed: nothing pending will be acknowledged on it. */
  failPending(): void {
    for (const [id, w] of this.waiters) {
      this.waiters.delete(id);
      w.reject(errors.notConnected());
    }
  }

  /** `<ack class="message" id=… [error=…]/>` from the server. */
  onAck(node: BinaryNode): void {
    const id = node.attrs.id;
    if (!id) return;
    const error = node.attrs.error;
    const waiter = this.waiters.get(id);
    this.waiters.delete(id);
    if (error) {
      const code = Number(error);
      const reason = `the network refused the message (error ${error})`;
      waiter?.reject(errors.networkRefused(reason));
      this.deps.recordError(id, reason, this.deps.now()).catch((err: unknown) => this.deps.failed(err, 'record nack'));
      if (RESTRICTION_ACK_CODES.has(code)) this.deps.restriction(`message refused with error ${error}`);
      return;
    }
    waiter?.resolve();
    this.record([id], 'SENT');
  }

  onUpdates(updates: readonly WAMessageUpdate[]): void {
    const byStatus = new Map<string, { status: MessageStatus; device: number; ids: string[] }>();
    for (const { key, update } of updates) {
      if (!key.fromMe || !key.id || typeof update.status !== 'number') continue;
      const status = STATUS_OF[update.status];
      if (!status) continue;
      // The receipt's sender jid still names the device that sent it (Baileys keeps it in the key).
      const device = deviceOf(key.participant ?? key.remoteJid);
      const group = byStatus.get(`${status}:${device}`) ?? { status, device, ids: [] };
      group.ids.push(key.id);
      byStatus.set(`${status}:${device}`, group);
    }
    for (const { status, device, ids } of byStatus.values()) this.record(ids, status, device);
  }

  /** Group receipts: the first participant to receive/read/play moves the message forward. */
  onReceipts(updates: readonly MessageUserReceiptUpdate[]): void {
    for (const { key, receipt } of updates) {
      if (!key.fromMe || !key.id) continue;
      const status: MessageStatus | undefined = receipt.playedTimestamp
        ? 'PLAYED'
        : receipt.readTimestamp
          ? 'READ'
          : receipt.receiptTimestamp
            ? 'RECEIVED'
            : undefined;
      if (status) this.record([key.id], status, deviceOf(key.participant));
    }
  }

  /** Resolves once every status seen so far is recorded (tests, shutdown). */
  idle(): Promise<void> {
    return this.chain;
  }

  /** `device`: the recipient's device the status came from (0 = the phone; the server's ack counts as 0), Z-API's `phoneDevice`. */
  private record(ids: string[], status: MessageStatus, device = 0): void {
    const at = this.deps.now();
    this.chain = this.chain
      .then(() => this.deps.advance(ids, status, at))
      .then(async (moved) => {
        if (moved.length === 0) return;
        const byPhone = new Map<string, string[]>();
        for (const m of moved) byPhone.set(m.phone, [...(byPhone.get(m.phone) ?? []), m.message_id]);
        const events: MessageStatusCallback[] = [];
        for (const [chat, list] of byPhone) {
          const isGroup = chat.endsWith('-group');
          // A message queued to a `<digits>@lid` reports the number once it is known, and the LID
          // beside it: the same person as the received events name (docs/contract.md §5).
          const person = isGroup ? { phone: chat, lid: null } : await this.deps.personOfChat(chat);
          events.push({ type: 'MessageStatusCallback', status, ids: list, momment: at, phone: person.phone, chatLid: person.lid, isGroup, phoneDevice: device });
        }
        await this.deps.emit(events);
      })
      .catch((err: unknown) => this.deps.failed(err, `record status ${status}`));
  }
}

/** The device number in a jid (`<user>:<device>@server`); none is the phone, 0. */
function deviceOf(jid: string | null | undefined): number {
  const m = /:(\d+)@/.exec(jid ?? '');
  return m ? Number(m[1]) : 0;
}
