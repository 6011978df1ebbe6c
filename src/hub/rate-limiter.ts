/** Buckets kept before refilled ones are dropped (a full bucket is the same as none). */
const PRUNE_AT = 4096;

// Per-key token bucket: `ratePerSecond` sustained, bursts up to `burstSeconds` worth (two by default).
export class RateLimiter {
  private buckets = new Map<string, { tokens: number; at: number }>();

  constructor(
    private ratePerSecond: number,
    private readonly now: () => number = Date.now,
    private readonly burstSeconds = 2,
  ) {}

  setRate(ratePerSecond: number): void {
    this.ratePerSecond = ratePerSecond;
    this.buckets.clear();
  }

  /** Takes one token; returns 0 when allowed, else the milliseconds until one is available. */
  take(key: string): number {
    if (this.ratePerSecond <= 0) return 0;
    const capacity = Math.max(1, this.ratePerSecond * this.burstSeconds);
    const t = this.now();
    const b = this.buckets.get(key) ?? { tokens: capacity, at: t };
    b.tokens = Math.min(capacity, b.tokens + ((t - b.at) / 1000) * this.ratePerSecond);
    b.at = t;
    if (!this.buckets.has(key) && this.buckets.size >= PRUNE_AT) this.prune(t, capacity);
    this.buckets.set(key, b);
    if (b.tokens >= 1) {
      b.tokens -= 1;
      return 0;
    }
    return Math.ceil(((1 - b.tokens) / this.ratePerSecond) * 1000);
  }

  private prune(t: number, capacity: number): void {
    for (const [key, b] of this.buckets) {
      if (b.tokens + ((t - b.at) / 1000) * this.ratePerSecond >= capacity) this.buckets.delete(key);
    }
  }
}
