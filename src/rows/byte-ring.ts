// A bounded record of the last `capacity` bytes written, for a row's raw transcript (debugging,
// export). It keeps references to the chunks it is given (each pty read is a fresh buffer) and
// drops whole chunks from the front, so the data path pays no copy; only toBuffer() copies.
// Callers must not reuse a buffer after writing it here.

export class ByteRing {
  private chunks: Uint8Array[] = [];
  private head = 0;
  /** Bytes held in chunks[head..], possibly more than capacity by part of the oldest chunk. */
  private held = 0;
  private total = 0;

  constructor(readonly capacity: number) {
    if (!Number.isInteger(capacity) || capacity < 1) throw new RangeError(`capacity must be a positive integer, got ${capacity}`);
  }

  /** Bytes currently held (at most capacity). */
  get size(): number {
    return Math.min(this.held, this.capacity);
  }

  /** Bytes ever written, including those that have been dropped. */
  get totalWritten(): number {
    return this.total;
  }

  write(chunk: Uint8Array): void {
    if (chunk.length === 0) return;
    this.total += chunk.length;
    this.chunks.push(chunk.length > this.capacity ? chunk.subarray(chunk.length - this.capacity) : chunk);
    this.held += Math.min(chunk.length, this.capacity);
    // Drop whole chunks while the rest still covers the capacity.
    while (this.head < this.chunks.length - 1 && this.held - this.chunks[this.head]!.length >= this.capacity) {
      this.held -= this.chunks[this.head]!.length;
      this.chunks[this.head] = EMPTY;
      this.head++;
    }
    if (this.head > 1024 && this.head * 2 > this.chunks.length) {
      this.chunks = this.chunks.slice(this.head);
      this.head = 0;
    }
  }

  /** A copy of the held bytes (the last `capacity`), oldest first. */
  toBuffer(): Buffer {
    const size = this.size;
    const out = Buffer.allocUnsafe(size);
    let skip = this.held - size;
    let at = 0;
    for (let i = this.head; i < this.chunks.length; i++) {
      let c = this.chunks[i]!;
      if (skip > 0) {
        const drop = Math.min(skip, c.length);
        c = c.subarray(drop);
        skip -= drop;
      }
      out.set(c, at);
      at += c.length;
    }
    return out;
  }

  clear(): void {
    this.chunks = [];
    this.head = 0;
    this.held = 0;
  }
}

const EMPTY = new Uint8Array(0);
