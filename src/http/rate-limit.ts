// Per-account token bucket: `rate` requests per second, bursts up to twice that.

export class RateLimiter {
  private readonly buckets = new Map<string, { tokens: number; at: number }>();

  constructor(
    private readonly rate: number,
    private readonly now: () => number,
  ) {}

  /** Takes one token; returns 0 when allowed, else the seconds to wait before retrying. */
  take(key: string): number {
    if (this.rate <= 0) return 0;
    const capacity = this.rate * 2;
    const t = this.now();
    const b = this.buckets.get(key) ?? { tokens: capacity, at: t };
    b.tokens = Math.min(capacity, b.tokens + ((t - b.at) / 1000) * this.rate);
    b.at = t;
    this.buckets.set(key, b);
    if (b.tokens >= 1) {
      b.tokens -= 1;
      return 0;
    }
    return Math.max(1, Math.ceil((1 - b.tokens) / this.rate));
  }
}
