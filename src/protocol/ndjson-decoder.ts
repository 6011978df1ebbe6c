// Bounded NDJSON framing. Works on raw bytes so a multibyte character split across reads is
// reassembled before decoding, and checks a line's length *before* any parse: an endless line
// costs at most `maxFrameBytes` of memory, is answered once with FRAME_TOO_LARGE and skipped.
//
// Decoding is pull-based (`feed` a chunk, then take frames with `next`) so a reader can stop in
// the middle of a chunk: the hub stops decoding a connection's frames while that connection's
// unread answers are over their limit, and what it has not decoded stays as raw bytes (at most one
// socket read) instead of becoming hundreds of pending requests.
import { swbError, type SwbErrorValue } from './error-codes.js';

export type DecodedFrame = { kind: 'line'; text: string } | { kind: 'error'; error: SwbErrorValue };

const NEWLINE = 0x0a;
const CR = 0x0d;
const CR_BYTE = Buffer.from([CR]);
const utf8 = new TextDecoder('utf-8', { fatal: true });

export class NdjsonDecoder {
  /** Pieces of an unfinished line. */
  private parts: Buffer[] = [];
  private pendingBytes = 0;
  /** True while skipping the rest of an oversized line up to its newline. */
  private discarding = false;
  /** The unfinished line's last byte was a CR: framing if a newline follows, content otherwise. */
  private heldCR = false;
  /** Fed chunks not looked at yet, and how far into the first one we are. */
  private chunks: Buffer[] = [];
  private offset = 0;
  private unreadBytes = 0;

  constructor(private readonly maxFrameBytes: number) {}

  /** Queues a chunk; frames come out of `next`. The chunk is not copied until a line spans it. */
  feed(chunk: Buffer): void {
    if (chunk.length === 0) return;
    this.chunks.push(chunk);
    this.unreadBytes += chunk.length;
  }

  /** The next complete frame (or framing error), or undefined when the fed bytes hold no more. */
  next(): DecodedFrame | undefined {
    while (this.chunks.length > 0) {
      const chunk = this.chunks[0]!;
      const start = this.offset;
      const nl = chunk.indexOf(NEWLINE, start);
      const end = nl === -1 ? chunk.length : nl;
      const pieceLength = end - start;
      if (nl === -1) {
        this.chunks.shift();
        this.offset = 0;
      } else {
        this.offset = nl + 1;
        if (this.offset >= chunk.length) {
          this.chunks.shift();
          this.offset = 0;
        }
      }
      this.unreadBytes -= pieceLength + (nl === -1 ? 0 : 1);
      let frame: DecodedFrame | undefined;
      if (this.discarding) {
        if (nl !== -1) this.discarding = false;
      } else {
        // A CR held back at the end of the previous piece was content after all.
        if (this.heldCR && pieceLength > 0) {
          this.parts.push(CR_BYTE);
          this.pendingBytes += 1;
        }
        this.heldCR = false;
        // A CR right before the newline is framing, not content: it never counts against the limit.
        const endsWithCR = pieceLength > 0 && chunk[end - 1] === CR;
        const contentEnd = endsWithCR ? end - 1 : end;
        if (this.pendingBytes + (contentEnd - start) > this.maxFrameBytes) {
          frame = this.tooLarge();
          this.discarding = nl === -1;
        } else if (nl === -1) {
          // Copy: the caller may reuse its buffer.
          this.parts.push(Buffer.from(chunk.subarray(start, contentEnd)));
          this.pendingBytes += contentEnd - start;
          this.heldCR = endsWithCR;
        } else {
          const piece = chunk.subarray(start, contentEnd);
          const line = this.parts.length === 0 ? piece : Buffer.concat([...this.parts, piece]);
          this.parts = [];
          this.pendingBytes = 0;
          frame = decodeLine(line);
        }
      }
      if (frame) return frame;
    }
    return undefined;
  }

  /** Feeds one chunk and returns every frame it finished, in order. */
  push(chunk: Buffer): DecodedFrame[] {
    this.feed(chunk);
    const out: DecodedFrame[] = [];
    for (let f = this.next(); f; f = this.next()) out.push(f);
    return out;
  }

  private tooLarge(): DecodedFrame {
    this.parts = [];
    this.pendingBytes = 0;
    this.heldCR = false;
    return frameTooLarge(this.maxFrameBytes);
  }

  /** Bytes held for an unfinished line (for tests and accounting). */
  get buffered(): number {
    return this.pendingBytes;
  }

  /** Bytes fed but not yet decoded (what a paused reader still holds). */
  get undecoded(): number {
    return this.unreadBytes;
  }
}

/** A complete line without its newline (and without the CR of a CRLF). */
function decodeLine(bytes: Buffer): DecodedFrame | undefined {
  if (bytes.length === 0) return undefined; // blank lines are keep-alives, not errors
  try {
    return { kind: 'line', text: utf8.decode(bytes) };
  } catch {
    return { kind: 'error', error: swbError('BAD_FRAME', 'A frame was not valid UTF-8.') };
  }
}

function frameTooLarge(limit: number): DecodedFrame {
  return {
    kind: 'error',
    error: swbError('FRAME_TOO_LARGE', `A frame was longer than the limit of ${limit} bytes and was skipped.`, { limit }),
  };
}

/** One object → one line. JSON.stringify never emits a raw newline, so framing is safe. */
export function encodeFrame(value: unknown): string {
  return `${JSON.stringify(value)}\n`;
}
