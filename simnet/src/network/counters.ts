// Named counters plus per-message-id delivery counts, so tests can detect duplicates.
export class Counters {
  private readonly values = new Map<string, number>();
  /** `${recipientPhone}:${messageId}` → times a contact decrypted that message. Bounded FIFO. */
  private readonly deliveries = new Map<string, number>();
  private static readonly MAX_TRACKED = 100_000;

  inc(name: string, by = 1): void {
    this.values.set(name, (this.values.get(name) ?? 0) + by);
  }

  get(name: string): number {
    return this.values.get(name) ?? 0;
  }

  delivered(recipient: string, messageId: string): number {
    const key = `${recipient}:${messageId}`;
    const n = (this.deliveries.get(key) ?? 0) + 1;
    this.deliveries.set(key, n);
    if (n === 2) this.inc('duplicates');
    if (this.deliveries.size > Counters.MAX_TRACKED) {
      const first = this.deliveries.keys().next().value;
      if (first !== undefined) this.deliveries.delete(first);
    }
    return n;
  }

  snapshot(): { counters: Record<string, number>; duplicates: Record<string, number>; deliveries: Record<string, number> } {
    const dups: Record<string, number> = {};
    const all: Record<string, number> = {};
    for (const [k, v] of this.deliveries) {
      all[k] = v;
      if (v > 1) dups[k] = v;
    }
    return { counters: Object.fromEntries(this.values), duplicates: dups, deliveries: all };
  }
}
