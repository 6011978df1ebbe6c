// A bounded byte ring: keeps the last `capacity` bytes written, for a row's raw transcript
// (debugging, export). One copy per chunk into a buffer that grows up to the capacity.

export class ByteRing {
  private buf: Buffer;
  private start = 0;
  private length = 0;
  private total = 0;

  constructor(readonly capacity: number) {
    if (!Number.isInteger(capacity) || capacity < 1) throw new RangeError(`capacity must be a positive integer, got ${capacity}`);
    // Bytes outside [start, start + length) are never read, so the buffers need no zero-filling.
    this.buf = Buffer.allocUnsafe(Math.min(capacity, 64 * 1024));
  }

  /** Bytes currently held (at most capacity). */
  get size(): number {
    return this.length;
  }

  /** Bytes ever written, including those that have been overwritten. */
  get totalWritten(): number {
    return this.total;
  }

  write(chunk: Uint8Array): void {
    this.total += chunk.length;
    if (chunk.length >= this.capacity) {
      this.ensure(this.capacity);
      this.buf.set(chunk.subarray(chunk.length - this.capacity), 0);
      this.start = 0;
      this.length = this.capacity;
      return;
    }
    this.ensure(Math.min(this.capacity, this.length + chunk.length));
    const cap = this.buf.length;
    let end = (this.start + this.length) % cap;
    const firstPart = Math.min(chunk.length, cap - end);
    this.buf.set(chunk.subarray(0, firstPart), end);
    if (firstPart < chunk.length) this.buf.set(chunk.subarray(firstPart), 0);
    end = (end + chunk.length) % cap;
    const newLength = this.length + chunk.length;
    if (newLength > cap) {
      this.start = end;
      this.length = cap;
    } else {
      this.length = newLength;
    }
  }

  /** A copy of the held bytes, oldest first. */
  toBuffer(): Buffer {
    const cap = this.buf.length;
    const out = Buffer.allocUnsafe(this.length);
    const firstPart = Math.min(this.length, cap - this.start);
    this.buf.copy(out, 0, this.start, this.start + firstPart);
    if (firstPart < this.length) this.buf.copy(out, firstPart, 0, this.length - firstPart);
    return out;
  }

  clear(): void {
    this.start = 0;
    this.length = 0;
  }

  /** Grows the backing buffer (linearising the contents) until it can hold `needed` bytes. */
  private ensure(needed: number): void {
    if (needed <= this.buf.length) return;
    let size = this.buf.length;
    while (size < needed) size = Math.min(this.capacity, size * 2);
    const next = Buffer.allocUnsafe(size);
    const held = this.toBuffer();
    next.set(held, 0);
    this.buf = next;
    this.start = 0;
  }
}
