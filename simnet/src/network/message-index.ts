// Who sent which message to whom, so receipts (automatic or admin-triggered) can be routed back. Bounded FIFO.
export interface IndexedMessage {
  id: string;
  senderPhone: string;
  /** 0 = the sender's phone (a virtual contact); ≥1 = a linked device. */
  senderDevice: number;
  /** The chat address as the sender wrote it (pn or lid jid, or group jid): receipts come back from it. */
  chatJid: string;
  /** Recipient phone (1:1) — absent for groups. */
  recipientPhone?: string;
  groupId?: string;
  isAudio: boolean;
  t: number;
}

const MAX = 200_000;

export class MessageIndex {
  private readonly map = new Map<string, IndexedMessage>();

  add(m: IndexedMessage): void {
    this.map.set(m.id, m);
    if (this.map.size > MAX) {
      const first = this.map.keys().next().value;
      if (first !== undefined) this.map.delete(first);
    }
  }

  get(id: string): IndexedMessage | undefined {
    return this.map.get(id);
  }
}
