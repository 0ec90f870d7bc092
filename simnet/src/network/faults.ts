// Fault injection state that outlives a connection (pending message nacks per account).
export class Faults {
  private readonly nacks = new Map<string, { code: number; remaining: number }>();

  addNack(phone: string, code: number, count: number): void {
    this.nacks.set(phone, { code, remaining: count });
  }

  /** The nack code for the next message of this account, if one is armed. */
  takeNack(phone: string): number | undefined {
    const n = this.nacks.get(phone);
    if (!n) return undefined;
    if (--n.remaining <= 0) this.nacks.delete(phone);
    return n.code;
  }
}
