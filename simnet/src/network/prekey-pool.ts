// A linked device's uploaded one-time pre-keys packed in one buffer (id + 32-byte key per 36-byte slot): ~30 KB per device instead of ~800 objects.
const SLOT = 36;

export class PreKeyPool {
  private buf: Buffer = Buffer.alloc(0);
  private head = 0;
  private tail = 0;

  get size(): number {
    return (this.tail - this.head) / SLOT;
  }

  add(id: number, pub: Uint8Array): void {
    if (pub.length !== 32) return;
    if (this.tail + SLOT > this.buf.length) {
      // Compact consumed slots away, then grow geometrically.
      const live = this.buf.subarray(this.head, this.tail);
      const next = Buffer.alloc(Math.max(SLOT * 64, (live.length + SLOT) * 2));
      live.copy(next);
      this.buf = next;
      this.tail = live.length;
      this.head = 0;
    }
    this.buf.writeUInt32BE(id, this.tail);
    this.buf.set(pub, this.tail + 4);
    this.tail += SLOT;
  }

  /** Hands out the oldest key and forgets it: no key is ever given to two senders. */
  take(): { id: number; pub: Buffer } | undefined {
    if (this.head >= this.tail) return undefined;
    const id = this.buf.readUInt32BE(this.head);
    const pub = Buffer.from(this.buf.subarray(this.head + 4, this.head + SLOT));
    this.head += SLOT;
    if (this.head === this.tail) {
      this.head = 0;
      this.tail = 0;
    }
    return { id, pub };
  }

  clear(): void {
    this.buf = Buffer.alloc(0);
    this.head = 0;
    this.tail = 0;
  }
}
