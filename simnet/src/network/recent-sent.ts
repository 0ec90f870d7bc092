// What a simnet phone keeps of the messages it sent, as WhatsApp phones do, to answer retry receipts by re-encrypting.
export interface SentMessage {
  id: string;
  /** Seconds, as sent in the original stanza's t. */
  t: string;
  /** proto.Message bytes (unpadded). */
  message: Uint8Array;
  /** Extra stanza attributes of the original (type, edit, ...). */
  attrs: Record<string, string>;
  /** 1:1: the recipient's phone; group: the group jid. */
  recipientPhone?: string;
  groupJid?: string;
}

export interface RetryRecord {
  messageId: string;
  /** Phone whose linked device asked. */
  from: string;
  deviceId: number;
  /** The retry's count attribute. */
  count: number;
  /** The receipt carried a key bundle (<keys>): the new session was built from it. */
  withKeys: boolean;
  /** resent: re-encrypted and sent again; relayed: passed to the linked device that sent the message;
   *  unknown: the sender no longer has the message; exhausted: too many retries for this message and device; failed: see error. */
  action: 'resent' | 'relayed' | 'unknown' | 'exhausted' | 'failed';
  /** pkmsg or msg for resent messages. */
  encType?: string;
  error?: string;
  t: number;
}

/** Bounded FIFO of sent messages (default: the last 500) plus the resend count per (message, device). */
export class RecentSent {
  private readonly byId = new Map<string, SentMessage>();
  private readonly resends = new Map<string, number>();

  constructor(private readonly max = 500) {}

  add(m: SentMessage): void {
    this.byId.delete(m.id);
    this.byId.set(m.id, m);
    while (this.byId.size > this.max) {
      const first = this.byId.keys().next().value;
      if (first === undefined) break;
      this.byId.delete(first);
    }
  }

  get(id: string): SentMessage | undefined {
    return this.byId.get(id);
  }

  get size(): number {
    return this.byId.size;
  }

  /** Counts one more resend of `id` to `device`; returns the new count. */
  countResend(id: string, device: string): number {
    const key = `${id}|${device}`;
    const n = (this.resends.get(key) ?? 0) + 1;
    this.resends.delete(key);
    this.resends.set(key, n);
    while (this.resends.size > this.max * 4) {
      const first = this.resends.keys().next().value;
      if (first === undefined) break;
      this.resends.delete(first);
    }
    return n;
  }
}
