// Per-sender token bucket: `ratePerSecond` sustained, bursts up to two seconds' worth.
export class RateLimiter {
  private buckets = new Map<string, { tokens: number; at: number }>();

  constructor(
    private ratePerSecond: number,
    private readonly now: () => number = Date.now,
  ) {}

  setRate(ratePerSecond: number): void {
    this.ratePerSecond = ratePerSecond;
    this.buckets.clear();
  }

  /** Takes one token; returns 0 when allowed, else the milliseconds until one is available. */
  take(key: string): number {
    if (this.ratePerSecond <= 0) return 0;
    const capacity = Math.max(1, this.ratePerSecond * 2);
    const t = this.now();
    const b = this.buckets.get(key) ?? { tokens: capacity, at: t };
    b.tokens = Math.min(capacity, b.tokens + ((t - b.at) / 1000) * this.ratePerSecond);
    b.at = t;
    this.buckets.set(key, b);
    if (b.tokens >= 1) {
      b.tokens -= 1;
      return 0;
    }
    return Math.ceil(((1 - b.tokens) / this.ratePerSecond) * 1000);
  }
}
